/**
 * A run that failed leaves its BullMQ job in `failed` (docs/architecture/worker.md#what-the-job-shows), so queue UIs (bull-board, Taskforce) list it there with the run's
 * error as its reason: `<code>: <message>`. The job fails with BullMQ's
 * `UnrecoverableError`, which BullMQ never retries whatever attempts remain:
 * the run is settled, its log says so, and another attempt would only find
 * it settled. The reaper, reading failed jobs, leaves settled runs alone.
 */
import type { RunError } from "@errand/core";
import { UnrecoverableError } from "bullmq";
import type { ProcessOutcome } from "./process-outcome.js";

/** The error a failed run's job fails with: its message is the run's `<code>: <message>`. */
export class RunFailedError extends UnrecoverableError {
  constructor(readonly runError: RunError) {
    super(`${runError.code}: ${runError.message}`);
    // The reason is the run's error; where in the worker it was noticed tells a reader nothing.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** The error of a run that failed without one in its log (never written by errand). */
const UNKNOWN_RUN_ERROR: RunError = {
  code: "internal",
  message: "the run failed without an error",
  retryable: false,
};

/**
 * Returns `outcome` for BullMQ to store as the job's return value, or throws
 * {@link RunFailedError} when it says the run failed, so that its job fails.
 */
export function jobResultOf(outcome: ProcessOutcome): ProcessOutcome {
  if (
    (outcome.kind === "settled" || outcome.kind === "already-settled") &&
    outcome.status === "failed"
  ) {
    throw new RunFailedError(outcome.error ?? UNKNOWN_RUN_ERROR);
  }
  return outcome;
}
