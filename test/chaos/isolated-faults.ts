/**
 * Isolated faults (`--isolated`): one at a time, so that no recovery overlaps
 * another. Before a worker fault, the harness waits until some worker holds a
 * run (the fault strikes one of those); after each fault, until it is
 * recovered from (the runs of the worker struck run again elsewhere, every
 * run then in flight settled) and the cluster is whole again (its
 * replacement ready), then a short random pause, then the next.
 */
import {
  type FaultContext,
  type FaultKind,
  type FaultRecord,
  holdingsOf,
  strike,
} from "./faults.js";
import { randomInt } from "./random.js";
import { unsettledNow } from "./settle.js";

/** The longest pause between one fault's recovery and the next fault, in ms (picked at random up to it). */
const MAX_PAUSE_MS = 1_000;

/** How often the harness looks whether a worker holds a run, in ms. */
const BUSY_CHECK_MS = 200;

/** How long a worker fault waits for a worker holding a run before it strikes anyway, in ms. */
const BUSY_WAIT_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once a worker holds a run, or after `BUSY_WAIT_MS`. Looked at
 * every `BUSY_CHECK_MS`: between faults only, so it measures nothing.
 */
async function someWorkerBusy(context: FaultContext): Promise<void> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  while (Date.now() < deadline) {
    const inFlight = await unsettledNow(context.errand, context.firedRunIds());
    if ((await holdingsOf(context.errand, inFlight)).size > 0) return;
    await sleep(BUSY_CHECK_MS);
  }
}

/**
 * Strikes the faults of `kinds` in order, one at a time; each record or
 * error goes to `recorded` or `failed` as it comes.
 */
export async function strikeOneAtATime(
  context: FaultContext,
  kinds: readonly FaultKind[],
  recorded: (record: FaultRecord) => void,
  failed: (kind: FaultKind, error: unknown) => void,
): Promise<void> {
  for (const kind of kinds) {
    await sleep(randomInt(context.random, 0, MAX_PAUSE_MS));
    if (kind === "worker-kill" || kind === "zombie") await someWorkerBusy(context);
    await strike(context, kind).then(recorded, (error: unknown) => failed(kind, error));
    await context.cluster.ready();
  }
}
