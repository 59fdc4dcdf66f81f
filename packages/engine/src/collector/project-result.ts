/**
 * A settled run's result: core's `settleRun` of the run's fold. The collector
 * usually has the fold already (see `run-projections.ts`); otherwise the
 * result is read back when stored, else folded from the run's log. The JSON
 * of the same log is the same bytes every time, so collectors racing on one
 * run agree.
 */
import { ErrandError, foldRun, type RunResult, type RunState, settleRun } from "@errand/core";
import { parseStoredResult } from "@errand/store/ops";
import type { CollectorContext } from "./context.js";

/**
 * The result of a settled run: `settleRun(projection)` when the collector
 * folded the whole run from the stream; else the run's stored result (a
 * redelivered entry never folds the log again); else the fold of its log.
 * Throws an {@link ErrandError} `internal` when the log does not settle (it
 * expired, or the entry that announced the settlement lied).
 */
export async function settledResult(
  context: CollectorContext,
  runId: string,
  projection: RunState | undefined,
): Promise<RunResult> {
  const folded = projection === undefined ? undefined : settleRun(projection);
  if (folded !== undefined) return folded;
  const { redis, keys, store } = context;
  const stored = await redis.get(keys.result(runId));
  if (stored !== null) return parseStoredResult(runId, stored);
  const result = settleRun(foldRun(await store.readLog(runId), runId));
  if (result === undefined) {
    throw new ErrandError(
      "internal",
      `run ${runId}: its shard stream announced a terminal event, but its log does not settle (expired or missing)`,
      { details: { runId } },
    );
  }
  return result;
}
