/** Reading the results the collector wrote, and whether a run without one exists at all. */
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

/**
 * Whether each run has a head (its log lives). Ask it of runs found without
 * a stored result: a run's head lives as long as its log, so a run with
 * neither was never fired, or expired.
 */
export async function headsExist(
  context: ReadsContext,
  runIds: readonly string[],
): Promise<boolean[]> {
  const counts = await Promise.all(
    runIds.map((runId) => context.redis.exists(context.keys.runHead(runId))),
  );
  return counts.map((count) => count > 0);
}

/** Where the runs of a list stand: their stored results, and the runs that exist without one. */
export interface StoredRuns {
  /** The stored result of each settled run. */
  results: Map<string, RunResult>;
  /** The runs that exist and have not settled, in order. */
  pending: string[];
}

/**
 * The stored results of `runIds`, and the runs that exist without one (what
 * `collect` reports `pending`). A run that does not exist (never fired, or
 * expired) and a string that is not a run id are in neither: nothing will
 * ever settle them.
 */
export async function readStoredRuns(
  context: ReadsContext,
  runIds: readonly string[],
): Promise<StoredRuns> {
  const wellFormed = runIds.filter(isRunId);
  const stored = await readStoredResults(context, wellFormed);
  const results = new Map<string, RunResult>();
  wellFormed.forEach((runId, index) => {
    const result = stored[index];
    if (result !== undefined) results.set(runId, result);
  });
  const unsettled = wellFormed.filter((runId) => !results.has(runId));
  const exists = await headsExist(context, unsettled);
  return { results, pending: unsettled.filter((_, index) => exists[index]) };
}

/** The runs of `runIds` that exist and have no stored result yet, in order (see {@link readStoredRuns}). */
export async function pendingRunIds(
  context: ReadsContext,
  runIds: readonly string[],
): Promise<string[]> {
  return (await readStoredRuns(context, runIds)).pending;
}
