/**
 * Aiming a process fault at a live target. A worker fault waits until a
 * ready worker (neither struck nor stopped) holds a run, and strikes one of
 * those; a collector kill waits until a collector is running. The aims of one
 * kind take turns, and each takes its victim out of the pool at once, so two
 * faults never strike the same process. A fault that finds no target within
 * `targetWaitMs` of its turn strikes nothing and says so. A Redis fault
 * waits until some run is in flight.
 */
import type { ChaosProcess } from "./chaos-process.js";
import { type FaultContext, sleep } from "./fault-context.js";
import { randomInt } from "./random.js";
import { unsettledNow } from "./settle.js";
import { holdingsOf, runsHeldBy } from "./worker-holdings.js";

/** How often an aim looks again for a target, in ms. */
const AIM_CHECK_MS = 200;

/** A worker taken out of the pool to be struck, and the runs it held (runId → seq of its `run-started`). */
export interface AimedWorker {
  victim: ChaosProcess;
  held: Map<string, number>;
}

/** Runs `aim` after the aims of its kind before it. */
function takingTurns(): <T>(aim: () => Promise<T>) => Promise<T> {
  let turn: Promise<unknown> = Promise.resolve();
  return (aim) => {
    const next = turn.then(aim);
    turn = next.catch(() => undefined);
    return next;
  };
}

const workerTurn = takingTurns();
const collectorTurn = takingTurns();

/** Lets a replacement start in the background, saying so should it fail. */
export function replace(starting: Promise<ChaosProcess>): void {
  void starting.catch((error: unknown) =>
    process.stderr.write(`chaos: a replacement did not start: ${error}\n`),
  );
}

/** Removes `item` from `list`, where it is. */
export function removeFrom<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}

/** Runs already known settled, so that aiming reads only the others. */
const knownSettled = new Set<string>();

/**
 * A ready worker holding a run, taken out of the pool; at the end of the
 * wait, any ready worker (holding nothing); undefined when none is up.
 * Workers in `spared` (those already stopped once, for a zombie) are
 * struck only when every ready worker is one of them, or at the end of the wait.
 */
export function aimAtBusyWorker(
  context: FaultContext,
  spared: ReadonlySet<ChaosProcess> = new Set(),
): Promise<AimedWorker | undefined> {
  return workerTurn(async () => {
    const { cluster, errand } = context;
    const deadline = Date.now() + context.targetWaitMs;
    for (;;) {
      const inFlight = await unsettledNow(
        errand,
        context.firedRunIds(),
        context.clientCalls,
        knownSettled,
      );
      const holdings = await holdingsOf(errand, inFlight);
      const holders = new Set([...holdings.values()].map((holding) => holding.workerId));
      const live = cluster.workers.filter((worker) => worker.alive());
      const busy = live.filter((worker) => holders.has(worker.workerId ?? ""));
      const fresh = busy.filter((worker) => !spared.has(worker));
      // A worker never struck before may yet get busy: wait for it; with none left, any busy one will do.
      const freshUp = live.some((worker) => !spared.has(worker));
      const timeUp = Date.now() >= deadline;
      const pool =
        fresh.length > 0
          ? fresh
          : freshUp && !timeUp
            ? []
            : busy.length > 0 || !timeUp
              ? busy
              : live;
      const victim = pool[randomInt(context.random, 0, pool.length - 1)];
      if (victim !== undefined) {
        removeFrom(cluster.workers, victim);
        return { victim, held: runsHeldBy(holdings, victim) };
      }
      if (timeUp) return undefined;
      await sleep(AIM_CHECK_MS);
    }
  });
}

/**
 * Resolves once some fired run is in flight (unsettled), or at the end of
 * the wait: a Redis fault strikes while runs go.
 */
export async function someRunInFlight(context: FaultContext): Promise<void> {
  const deadline = Date.now() + context.targetWaitMs;
  while (Date.now() < deadline) {
    const { errand, clientCalls } = context;
    const inFlight = await unsettledNow(errand, context.firedRunIds(), clientCalls, knownSettled);
    if (inFlight.length > 0) return;
    await sleep(AIM_CHECK_MS);
  }
}

/** A running collector, taken out of the pool; undefined when none came up within the wait. */
export function aimAtCollector(context: FaultContext): Promise<ChaosProcess | undefined> {
  return collectorTurn(async () => {
    const { collectors } = context.cluster;
    const deadline = Date.now() + context.targetWaitMs;
    for (;;) {
      const live = collectors.filter((collector) => collector.alive());
      const victim = live[randomInt(context.random, 0, live.length - 1)];
      if (victim !== undefined) {
        removeFrom(collectors, victim);
        return victim;
      }
      if (Date.now() >= deadline) return undefined;
      await sleep(AIM_CHECK_MS);
    }
  });
}
