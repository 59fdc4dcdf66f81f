/**
 * `result(runId, { waitMs })`: a run's settled `RunResult`, as the collector
 * stored it, optionally waiting for it (blocking on the settled channel, no
 * polling loop): with `waitMs` it listens first, then reads once, then again
 * only when the run is announced, and not even then when the announcement
 * carried its result.
 */
import { ErrandError, type RunResult } from "@errand/core";
import { runNotFound, shardOfRunId, wholeNumberOption } from "@errand/core/ops";
import { readStoredResults, readStoredRuns } from "@errand/store/ops";
import { withTreeSpend } from "../budgets/tree-view.js";
import type { ReadsContext } from "./context.js";

/** Options of {@link readResult}. */
export interface ResultOptions {
  /** Wait up to this long for the run to settle. Default 0: answer at once. */
  waitMs?: number;
}

/**
 * The run's stored result; throws `not_found` for a run that does not exist
 * (or expired). Waiting, the run is expected pending: read head first (its status alone while pending).
 */
async function readStanding(
  context: ReadsContext,
  runId: string,
  waiting: boolean,
): Promise<RunResult | undefined> {
  const { results, standings } = await readStoredRuns(context, [runId], [], {
    expectPending: waiting,
  });
  if (standings.get(runId) === "not_found") throw runNotFound(runId);
  return results.get(runId);
}

/** The run's stored result, for a run known to exist. */
async function readOne(context: ReadsContext, runId: string): Promise<RunResult | undefined> {
  const [stored] = await readStoredResults(context, [runId]);
  return stored;
}

/**
 * The run's `RunResult`, or `undefined` while it has not settled (after
 * waiting up to `waitMs`). Throws an {@link ErrandError} `invalid_spec` for a
 * malformed runId and `not_found` for a run that does not exist (or expired).
 */
export async function readResult(
  context: ReadsContext,
  runId: string,
  options: ResultOptions = {},
): Promise<RunResult | undefined> {
  shardOfRunId(runId);
  const waitMs = wholeNumberOption("waitMs", options.waitMs, 0, 0);
  // A read no announcement caused (the first, once the waiter listens) also tells a run that does not exist.
  const settled = await context.waiter.waitUntil(
    [runId],
    waitMs,
    async (announced) =>
      announced === undefined
        ? readStanding(context, runId, waitMs > 0)
        : (announced.get(runId) ?? readOne(context, runId)),
    (result) => result !== undefined,
  );
  return settled && withTreeSpend(context.redis, context.keys, settled);
}
