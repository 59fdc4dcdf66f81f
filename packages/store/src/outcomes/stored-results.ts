/**
 * Reading where runs stand: the results the collector wrote, and, for a run
 * without one, whether it exists at all. One round trip answers for a whole
 * list (see `standings.ts`).
 */
import { ErrandError, RunResult } from "@errand/core";
import { isRunId } from "@errand/core/ops";
import {
  type OutcomeReads,
  type RunStanding,
  readStandings,
  type StandingsOptions,
} from "./standings.js";

/**
 * The text a result is stored as: its JSON without what the result's key
 * already says — the `runId`, and the `rootRunId` of a run that is its own
 * root — which {@link parseStoredResult} fills in again
 * (docs/architecture/collector.md#slim-heads-and-results-in-two-releases).
 */
export function storedResultJson(result: RunResult): string {
  const { runId, rootRunId, ...rest } = result;
  return JSON.stringify(rootRunId === runId ? rest : { rootRunId, ...rest });
}

/**
 * A stored result, parsed and checked against the `RunResult` schema: the
 * one way a result written by the collector is read. The `runId` and the
 * root of a run that is its own root are filled in when the text leaves them
 * out, as {@link storedResultJson} stores results; results stored whole by older versions read alike. Throws an `ErrandError` `internal` for text the collector could not
 * have written.
 */
export function parseStoredResult(runId: string, json: string): RunResult {
  try {
    const stored: unknown = JSON.parse(json);
    // Filled in on the parsed object itself, not on a copy: the parse makes a new one, in the schema's order.
    if (typeof stored === "object" && stored !== null && !Array.isArray(stored)) {
      const fields = stored as Record<string, unknown>;
      if (!Object.hasOwn(fields, "runId")) fields.runId = runId;
      if (!Object.hasOwn(fields, "rootRunId")) fields.rootRunId = runId;
    }
    return RunResult.parse(stored);
  } catch (error) {
    throw new ErrandError("internal", `run ${runId}: its stored result is not a RunResult`, {
      cause: error,
      details: { runId },
    });
  }
}

/** The stored result of each run, in order; undefined where the run has not settled (or is unknown). */
export async function readStoredResults(
  context: Pick<OutcomeReads, "redis" | "keys">,
  runIds: readonly string[],
): Promise<(RunResult | undefined)[]> {
  const stored = await Promise.all(
    runIds.map((runId) => context.redis.get(context.keys.result(runId))),
  );
  return stored.map((json, index) =>
    json === null ? undefined : parseStoredResult(runIds[index]!, json),
  );
}

/** Where the runs of a list stand (see {@link readStoredRuns}). */
export interface StoredRuns {
  /** The stored result of each run read in full that has one. */
  results: Map<string, RunResult>;
  /** Where each run stands: every run asked about, read in full or only counted. */
  standings: Map<string, RunStanding>;
}

/**
 * Where the runs of `full` and `counted` stand, with the stored results of
 * the runs of `full`, in one round trip: the `read-standings-n.lua` call of
 * each shard, which reads the results of the runs of `full` (one MGET) and
 * looks up the result of each other run, and the head of each run without a
 * result (one EXISTS for those of `full`; one character a run in the reply,
 * beside the results read). A run
 * only counted whose result outlived its head (it expired a moment before)
 * is read once more, in full: only then is there a second round trip. A run
 * given twice is read once (in full, if it is in `full`); a string that is
 * not a run id is `not_found`. With `expectPending` (the first read of a
 * wait), a shard's lone run of `full` is read head first.
 */
export async function readStoredRuns(
  context: OutcomeReads,
  full: readonly string[],
  counted: readonly string[] = [],
  options: StandingsOptions = {},
): Promise<StoredRuns> {
  const fullIds = distinctRunIds(full);
  const countedIds = counted.length === 0 ? counted : distinctRunIds(counted, new Set(fullIds));
  const read = await readStandings(context, fullIds, countedIds, options);
  const results = new Map<string, RunResult>();
  const standings = new Map<string, RunStanding>();
  for (const runId of full) standings.set(runId, "not_found");
  for (const runId of counted) standings.set(runId, "not_found");
  read.stored.forEach((json, runId) => {
    const result = parseStoredResult(runId, json);
    results.set(runId, result);
    standings.set(runId, result.status);
  });
  let unexplained: string[] | undefined;
  read.standings.forEach((standing, runId) => {
    if (standing !== "unexplained") standings.set(runId, standing);
    else {
      unexplained ??= [];
      unexplained.push(runId);
    }
  });
  // Only a run counted can be unexplained: a run read in full had its result read.
  if (unexplained === undefined) return { results, standings };
  const late = await readStoredResults(context, unexplained);
  unexplained.forEach((runId, index) => {
    const result = late[index];
    if (result !== undefined) standings.set(runId, result.status);
  });
  return { results, standings };
}

/**
 * The run ids of `runIds`, each once, in order, but those of `except`: the
 * list itself when it is one run id and nothing is excepted (a `result`'s read).
 */
function distinctRunIds(
  runIds: readonly string[],
  except?: ReadonlySet<string>,
): readonly string[] {
  if (runIds.length === 1 && except === undefined) return isRunId(runIds[0]!) ? runIds : [];
  return [...new Set(runIds.filter((runId) => isRunId(runId) && !except?.has(runId)))];
}

/** The runs of `runIds` that exist and have no stored result yet, in order (see {@link readStoredRuns}). */
export async function pendingRunIds(
  context: OutcomeReads,
  runIds: readonly string[],
): Promise<string[]> {
  const { standings } = await readStoredRuns(context, [], runIds);
  return runIds.filter((runId) => standings.get(runId) === "pending");
}

/** The runs a re-check reads at a time, newest first (see {@link newestPendingRunIds}). */
const NEWEST_PENDING_SLICE = 1_000;

/**
 * The runs still pending of the newest slice of `runIds` (1,000 runs, taken
 * from the end: `runIds` in creation order) that holds any; `[]` once none of
 * `runIds` is pending. What a parked run's re-check needs — is it still
 * waiting? — at a cost that does not grow with the runs it waits for while
 * they settle in the order they were created, as a fan-out's queued children
 * do: the newest are the last to settle, so the first slice read answers.
 * Only the last re-check, which finds every run settled, reads them all.
 */
export async function newestPendingRunIds(
  context: OutcomeReads,
  runIds: readonly string[],
): Promise<string[]> {
  for (let end = runIds.length; end > 0; end -= NEWEST_PENDING_SLICE) {
    const pending = await pendingRunIds(
      context,
      runIds.slice(Math.max(0, end - NEWEST_PENDING_SLICE), end),
    );
    if (pending.length > 0) return pending;
  }
  return [];
}
