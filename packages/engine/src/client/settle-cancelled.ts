/**
 * Writing a run's `cancelled`, shared by the worker (a cancel arrived while it
 * held the run) and the client (the run was still waiting in its queue).
 * Fenced at the seq just read; on a conflict it reads again, so it never
 * writes after another writer's terminal event.
 */
import {
  applyEvent,
  ErrandError,
  foldRun,
  isErrandError,
  isSettled,
  type RunState,
} from "@errand/core";
import { runNotFound } from "@errand/core/ops";
import { type EventStore, isSeqConflict } from "@errand/store";

/** How many times a fenced `cancelled` is retried after a seq conflict before giving up. */
const MAX_CANCEL_TRIES = 10;

/**
 * Settles run `runId` as `cancelled` (with the reason of its
 * `cancel-requested`, if any) unless it settled already, and returns its
 * state afterwards. Throws `not_found` for an unknown run, and `internal`
 * when other writers keep moving the log on.
 */
export async function settleCancelled(
  store: EventStore,
  runId: string,
  now: () => Date = () => new Date(),
): Promise<RunState> {
  for (let tries = 0; tries < MAX_CANCEL_TRIES; tries++) {
    const state = foldRun(await store.readLog(runId), runId);
    if (state.queued === undefined) {
      throw runNotFound(runId);
    }
    if (isSettled(state)) return state;
    const reason = state.cancelRequested?.reason;
    const data = reason === undefined ? {} : { reason };
    try {
      const written = await store.appendEvents(runId, state.seq, [
        { type: "cancelled", at: now().toISOString(), data },
      ]);
      return written.reduce(applyEvent, state);
    } catch (error) {
      if (!isSeqConflict(error) && !isErrandError(error, "run_settled")) throw error;
    }
  }
  throw new ErrandError(
    "internal",
    `run ${runId}: could not append cancelled after ${MAX_CANCEL_TRIES} tries; other writers kept appending`,
    { retryable: true },
  );
}
