/**
 * A run as every answer shows it (docs/architecture/mcp.md#answers): the
 * fields of `collect`'s batch entry — `runId`, `ok`, `status`, `error`,
 * `retryable`, `viewUrl` — with its output and text carried by the size
 * rules of `inline-value.ts`. One shape for `wait_runs` and `get_run`.
 */
import type { CollectedRun, LinkedRunResult } from "@errand/engine";
import { collectedRun } from "@errand/engine/ops";
import { type InlineOutput, type InlineText, inlineOutput, inlineText } from "./inline-value.js";

/** One run in an answer. */
export type RunView = Omit<CollectedRun, "output" | "text"> &
  (InlineOutput | Record<never, never>) &
  (InlineText | Record<never, never>);

/** `run` with its output and text held to `maxChars` characters each. */
export function runView(run: CollectedRun, maxChars: number): RunView {
  const { output, text, ...rest } = run;
  return {
    ...rest,
    ...(output === undefined ? {} : inlineOutput(run.runId, output, maxChars)),
    ...(text === undefined ? {} : inlineText(run.runId, text, maxChars)),
  };
}

/** A settled `result` as its batch entry: what `collect` says of it. */
export function collectedOf(result: LinkedRunResult): CollectedRun {
  const viewUrl = result.viewUrl === undefined ? {} : { viewUrl: result.viewUrl };
  return { ...collectedRun(result.runId, result, result.status), ...viewUrl };
}
