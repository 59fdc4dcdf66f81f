/**
 * One run of a `collect` batch: what a parent needs of it — `ok`, its
 * status, its output or text, or why it is not ok and whether asking again
 * may help — built from its stored result or from where it stands.
 */
import type { RunResult } from "@errand/core";
import { isRunId } from "@errand/core/ops";
import type { RunStanding } from "@errand/store/ops";

/** Where a collected run stands: settled, `pending` (no stored result yet), or `not_found`. */
export type CollectedStatus = RunStanding;

/** One run of a `collect` batch. */
export interface CollectedRun {
  runId: string;
  /** True exactly when the run succeeded. */
  ok: boolean;
  status: CollectedStatus;
  /** The structured output of a run that succeeded with one. */
  output?: unknown;
  /** The run's closing text, when it has one. */
  text?: string;
  /** Why the run is not ok: its own error, `pending`, or `not_found`. */
  error?: { code: string; message: string };
  /** For a run that is not ok: whether asking again (or firing again) may succeed. */
  retryable?: boolean;
  /** The run's page on the dashboard, when the reader was given a dashboard URL. */
  viewUrl?: string;
}

function settledRun(result: RunResult): CollectedRun {
  const text = result.text === undefined ? {} : { text: result.text };
  if (result.status === "succeeded") {
    const output = result.output === undefined ? {} : { output: result.output };
    return { runId: result.runId, ok: true, status: "succeeded", ...output, ...text };
  }
  const error = result.error ?? {
    code: result.status,
    message: `the run ${result.status}`,
    retryable: false,
  };
  return {
    runId: result.runId,
    ok: false,
    status: result.status,
    ...text,
    error: { code: error.code, message: error.message },
    retryable: error.retryable,
  };
}

function pendingRun(runId: string): CollectedRun {
  return {
    runId,
    ok: false,
    status: "pending",
    error: {
      code: "pending",
      message: "the run has not settled yet; collect it again to get its result",
    },
    retryable: true,
  };
}

function missingRun(runId: string): CollectedRun {
  const message = isRunId(runId)
    ? `no run ${runId}: it was never fired, or it expired`
    : `${JSON.stringify(runId)} is not a run id`;
  return {
    runId,
    ok: false,
    status: "not_found",
    error: { code: "not_found", message },
    retryable: false,
  };
}

/**
 * The batch entry of `runId`: from its stored `result` when it has one,
 * else `pending` or `not_found` as `standing` says.
 */
export function collectedRun(
  runId: string,
  result: RunResult | undefined,
  standing: RunStanding | undefined,
): CollectedRun {
  if (result !== undefined) return settledRun(result);
  return standing === "pending" ? pendingRun(runId) : missingRun(runId);
}
