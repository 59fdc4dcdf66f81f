/**
 * A settled run's result: core's `settleRun` of the run's fold, kept for its
 * result alone (`applyResultEventInPlace`: no step's calls, text or items). The
 * collector usually has the fold already (see `run-projections.ts`);
 * otherwise the result is read back when stored, else folded from the run's
 * log a page at a time, so that a parent of a million children costs a page
 * of its log and a few hundred bytes a step, not its whole log twice over
 * (docs/architecture/collector.md#results-folded-a-page-at-a-time). The JSON
 * of the same log is the same bytes every time, so collectors racing on one
 * run agree.
 */
import { ErrandError, type RunResult, type RunState, settleRun } from "@errand/core";
import { applyResultEventInPlace } from "@errand/core/ops";
import { parseStoredResult } from "@errand/store/ops";
import { foldLogInPages } from "../reads/log-pages.js";
import type { CollectorContext } from "./context.js";

/**
 * The result of a settled run the collector folded whole from the stream
 * (`settleRun(projection)`); undefined when it did not (no projection, or
 * one that does not settle): then {@link readSettledResult} gives it.
 */
export function foldedResult(projection: RunState | undefined): RunResult | undefined {
  return projection === undefined ? undefined : settleRun(projection);
}

/**
 * The result of a settled run the collector did not fold: the run's stored
 * result (a redelivered entry never folds the log again), else the fold of
 * its log. Throws an {@link ErrandError} `internal` when the log does not
 * settle (it expired, or the entry that announced the settlement lied).
 */
export async function readSettledResult(
  context: CollectorContext,
  runId: string,
): Promise<RunResult> {
  const { redis, keys, store } = context;
  const stored = await redis.get(keys.result(runId));
  if (stored !== null) return parseStoredResult(runId, stored);
  const state = await foldLogInPages(store, runId, (folded, page) =>
    page.reduce(applyResultEventInPlace, folded),
  );
  const result = settleRun(state);
  if (result === undefined) {
    throw new ErrandError(
      "internal",
      `run ${runId}: its shard stream announced a terminal event, but its log does not settle (expired or missing)`,
      { details: { runId } },
    );
  }
  return result;
}
