/**
 * Settling a run as `failed` from outside its worker: one unfenced append of
 * a `failed` event. A run that settled meanwhile keeps its own ending.
 */
import { isErrandError, type RunError } from "@errand/core";
import type { EventStore } from "@errand/store";

/** What appending the failure did. */
export type FailureOutcome = "settled" | "already-settled" | "unknown-run";

/**
 * Appends `failed` with `error` to the run's log, unfenced. Resolves
 * `already-settled` when the run had settled (the store refused with
 * `run_settled`) and `unknown-run` when it has no log (expired or never fired).
 */
export async function appendFailure(
  store: EventStore,
  runId: string,
  error: RunError,
  at: string,
): Promise<FailureOutcome> {
  try {
    await store.appendEvents(runId, "any", [{ type: "failed", at, data: error }]);
    return "settled";
  } catch (appendError) {
    if (isErrandError(appendError, "run_settled")) return "already-settled";
    if (isErrandError(appendError, "not_found")) return "unknown-run";
    throw appendError;
  }
}
