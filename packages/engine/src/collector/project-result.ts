/**
 * A settled run's result: core's `settleRun(foldRun(log))`, written once as
 * JSON under `result:<runId>` with the store's retention. The JSON of the same
 * log is the same bytes every time, so collectors racing on one run agree.
 */
import { ErrandError, foldRun, type RunResult, settleRun } from "@errand/core";
import type { CollectorContext } from "./context.js";

/**
 * The run's stored result; when there is none yet, folds the run's whole log,
 * stores the result and returns it. A stored result means the run was already
 * folded up to its terminal event, so a redelivered entry never folds it again.
 * Throws an {@link ErrandError} `internal` when the log does not settle (it
 * expired, or the entry that announced the settlement lied).
 */
export async function projectResult(context: CollectorContext, runId: string): Promise<RunResult> {
  const { redis, keys, store, retentionSeconds } = context;
  const key = keys.result(runId);
  const stored = await redis.get(key);
  if (stored !== null) return JSON.parse(stored) as RunResult;
  const result = settleRun(foldRun(await store.readLog(runId), runId));
  if (result === undefined) {
    throw new ErrandError(
      "internal",
      `run ${runId}: its shard stream announced a terminal event, but its log does not settle (expired or missing)`,
      { details: { runId } },
    );
  }
  await redis.set(key, JSON.stringify(result), "EX", retentionSeconds, "NX");
  return result;
}
