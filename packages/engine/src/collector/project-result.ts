/**
 * A settled run's result: core's `settleRun(foldRun(log))`, written once as
 * JSON under `result:<runId>` with the store's retention. The JSON of the same
 * log is the same bytes every time, so collectors racing on one run agree.
 */
import { ErrandError, foldRun, type RunResult, settleRun } from "@errand/core";
import type { CollectorContext } from "./context.js";

/** A settled run's result, and whether it is stored already. */
export interface SettledResult {
  result: RunResult;
  stored: boolean;
}

/**
 * The run's stored result; when there is none yet, the fold of its whole log
 * (not stored: see {@link storeResult}). A stored result means the run was
 * already folded up to its terminal event, so a redelivered entry never folds
 * it again. Throws an {@link ErrandError} `internal` when the log does not
 * settle (it expired, or the entry that announced the settlement lied).
 */
export async function settledResult(
  context: CollectorContext,
  runId: string,
): Promise<SettledResult> {
  const { redis, keys, store } = context;
  const stored = await redis.get(keys.result(runId));
  if (stored !== null) return { result: JSON.parse(stored) as RunResult, stored: true };
  const result = settleRun(foldRun(await store.readLog(runId), runId));
  if (result === undefined) {
    throw new ErrandError(
      "internal",
      `run ${runId}: its shard stream announced a terminal event, but its log does not settle (expired or missing)`,
      { details: { runId } },
    );
  }
  return { result, stored: false };
}

/** Stores `result` under `result:<runId>` with the retention, unless a result is there already. */
export async function storeResult(context: CollectorContext, result: RunResult): Promise<void> {
  const { redis, keys, retentionSeconds } = context;
  await redis.set(keys.result(result.runId), JSON.stringify(result), "EX", retentionSeconds, "NX");
}
