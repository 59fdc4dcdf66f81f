/**
 * Isolated faults (`--isolated`): one at a time, so that no recovery overlaps
 * another. Each fault aims as any does (a worker fault waits until a worker
 * holds a run: `live-targets.ts`); after it, the harness waits until it is
 * recovered from (the runs of the worker struck run again elsewhere, every
 * run then in flight settled) and the cluster is whole again (its
 * replacement ready), then a short random pause, then the next.
 */
import { type FaultContext, type FaultKind, type FaultRecord, sleep } from "./fault-context.js";
import { strike } from "./faults.js";
import { randomInt } from "./random.js";

/** The longest pause between one fault's recovery and the next fault, in ms (picked at random up to it). */
const MAX_PAUSE_MS = 1_000;

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
    await strike(context, kind).then(recorded, (error: unknown) => failed(kind, error));
    await context.cluster.ready();
  }
}
