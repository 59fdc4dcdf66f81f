/**
 * Who holds which run, read from the runs' logs: a run is held by the worker
 * whose `run-started` is its last, until it parks or ends. And whether the
 * runs of a worker struck ran again elsewhere, followed on their logs.
 */
import { ErrandError, isTerminalEventType } from "@errand/core";
import type { Errand } from "@errand/engine";
import type { ChaosProcess } from "./chaos-process.js";

/** The worker holding a run, and the seq of the `run-started` of its attempt. */
export interface Holding {
  workerId: string;
  startedSeq: number;
}

/**
 * For each unsettled run among `runIds` that a worker is running (started,
 * neither parked nor ended since), who holds it.
 */
export async function holdingsOf(
  errand: Errand,
  runIds: readonly string[],
): Promise<Map<string, Holding>> {
  const holdings = new Map<string, Holding>();
  for (const runId of runIds) {
    let holding: Holding | undefined;
    for await (const event of errand.events(runId)) {
      if (event.type === "run-started") {
        holding = { workerId: event.data.workerId, startedSeq: event.seq };
      }
      if (event.type === "run-parked" || isTerminalEventType(event.type)) holding = undefined;
    }
    if (holding !== undefined) holdings.set(runId, holding);
  }
  return holdings;
}

/** The runs of `holdings` that `worker` holds, each with the seq of its attempt's `run-started`. */
export function runsHeldBy(
  holdings: ReadonlyMap<string, Holding>,
  worker: ChaosProcess,
): Map<string, number> {
  return new Map(
    [...holdings]
      .filter(([, holding]) => holding.workerId === worker.workerId)
      .map(([runId, holding]) => [runId, holding.startedSeq]),
  );
}

/**
 * Resolves once run `runId` logs a `run-started` by another worker than
 * `workerId`: followed on its log, never polled. Rejects when the run
 * settles first or `signal` aborts.
 */
export async function startedElsewhere(
  errand: Errand,
  runId: string,
  workerId: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  for await (const event of errand.events(runId, { follow: true, signal })) {
    if (event.type === "run-started" && event.data.workerId !== workerId) return;
  }
  throw new ErrandError("internal", `${runId} was not taken over`);
}

/**
 * When (epoch ms) every run of `held` (runId → the seq of its holder's
 * `run-started`) ran again: a later `run-started` (its holder is down, so
 * another worker's), or it ended or parked. Undefined when some did not
 * within `timeoutMs`. Followed on the runs' logs, never polled.
 */
export async function ranAgainElsewhere(
  errand: Errand,
  held: ReadonlyMap<string, number>,
  timeoutMs: number,
): Promise<number | undefined> {
  if (held.size === 0) return undefined;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    await Promise.all(
      [...held].map(async ([runId, startedSeq]) => {
        for await (const event of errand.events(runId, {
          follow: true,
          afterSeq: startedSeq,
          signal: abort.signal,
        })) {
          if (event.type === "run-started" || event.type === "run-parked") return;
          if (isTerminalEventType(event.type)) return;
        }
        throw new ErrandError("internal", `${runId}: its log ended without running again`);
      }),
    );
    return Date.now();
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
