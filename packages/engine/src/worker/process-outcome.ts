/**
 * How a run's job ended for the worker that processed it (`processRun`):
 * what the job handler then does with the job, and what its result says.
 */
import type { RunError, RunState, RunStatus } from "@errand/core";

/** How a job of a run ended for this worker. */
export type ProcessOutcome =
  /** This attempt carried the run to its end; `status` is how it settled, `error` why it failed. */
  | { kind: "settled"; status: RunStatus; error?: RunError }
  /** The run had settled before (or was settled by another writer meanwhile). */
  | { kind: "already-settled"; status: RunStatus; error?: RunError }
  /** A cancel was requested: this worker wrote `cancelled`. */
  | { kind: "cancelled" }
  /** Another attempt owns the run: this one stopped writing. */
  | { kind: "lost" }
  /**
   * A tool parked the run until `waitFor` settle, or none of its children
   * is pending (`waitForChildren`; `waitFor` is then empty), or until its
   * waitpoint is answered or times out (`waitpoint`, with the instant of its
   * timeout): the step so far is logged, the run stays open.
   */
  | {
      kind: "parked";
      waitFor: readonly string[];
      waitForChildren?: boolean;
      waitpoint?: ParkedWaitpoint;
    }
  /** The open run was fired for `agentVersion`, which this worker does not run: nothing written. */
  | { kind: "other-version"; agentVersion: string }
  /** A concurrency limit is reached: nothing written; the job waits in the queue until `retryAtMs`. */
  | { kind: "throttled"; retryAtMs: number; limitedBy: string };

/** The waitpoint a parked run waits on: its token, and when it times out (ms), if it does. */
export interface ParkedWaitpoint {
  token: string;
  timeoutAtMs?: number;
}

/** The outcome of a settled run: its status, and its error when it failed. */
export function settledOutcome(
  kind: "settled" | "already-settled",
  state: RunState,
): Extract<ProcessOutcome, { kind: typeof kind }> {
  return state.error === undefined
    ? { kind, status: state.status }
    : { kind, status: state.status, error: state.error };
}
