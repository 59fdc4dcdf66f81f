/** Reading the results the collector wrote, and whether a run exists at all. */
import { isRunId, type RunResult } from "@errand/core";
import type { ReadsContext } from "./context.js";

/** The stored result of each run, in order; undefined where the run has not settled (or is unknown). */
export async function readStoredResults(
  context: ReadsContext,
  runIds: readonly string[],
): Promise<(RunResult | undefined)[]> {
  const stored = await Promise.all(
    runIds.map((runId) => context.redis.get(context.keys.result(runId))),
  );
  return stored.map((json) => (json === null ? undefined : (JSON.parse(json) as RunResult)));
}

/** Whether each run exists: it has a head (its log lives) or a stored result. */
export async function runsExist(
  context: ReadsContext,
  runIds: readonly string[],
): Promise<boolean[]> {
  const counts = await Promise.all(
    runIds.map((runId) =>
      Promise.all([
        context.redis.exists(context.keys.runHead(runId)),
        context.redis.exists(context.keys.result(runId)),
      ]),
    ),
  );
  return counts.map(([head, result]) => head + result > 0);
}

/**
 * The runs of `runIds` that exist and have no stored result yet: what
 * `collect` reports `pending`, in order. A run that does not exist (never
 * fired, or expired) and a string that is not a run id are not pending:
 * nothing will ever settle them.
 */
export async function pendingRunIds(
  context: ReadsContext,
  runIds: readonly string[],
): Promise<string[]> {
  const wellFormed = runIds.filter(isRunId);
  const stored = await readStoredResults(context, wellFormed);
  const unsettled = wellFormed.filter((_, index) => stored[index] === undefined);
  const exists = await runsExist(context, unsettled);
  return unsettled.filter((_, index) => exists[index]);
}
