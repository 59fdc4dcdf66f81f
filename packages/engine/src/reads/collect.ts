/**
 * `collect(runIds, { waitMs, limit, cursor })`: the outcome of many runs at
 * once, as a batch (docs/architecture/tool-results.md#the-result-vocabulary) — one result per run in the order given, each
 * with its own `ok`, successes never thrown away because another run failed.
 *
 * A page holds up to `limit` runs (default 50, at most 500) from the
 * position the cursor encodes, `count` of them. `total`, `succeeded`,
 * `failed`, `cancelled` and `pending` count EVERY run given, on every page
 * (`failed` includes runs that do not exist), so a parent with 200 children
 * learns from any page how many are done and how many still run.
 *
 * Cost: one round trip a page (see `readStoredRuns`): one
 * `read-standings-n.lua` call per shard (and 1,000 runs) that reads the results
 * of the page's runs (one `MGET`, and one `EXISTS` of the heads of those
 * without one, two commands whatever their number), looks up every
 * other run's result and head in Redis, and answers one character a run
 * beside the results read. Measured on a shared 2-core machine under heavy load
 * (load average 14, so read them as upper bounds), 40 pages each: a page of
 * 50 over 500 runIds took 6 ms at best, 14–21 ms as a median; over 5,000
 * runIds 67–74 ms at best, 111–163 ms as a median. Each run beyond the page
 * cost 9–15 µs of the reader's time at best (14–32 µs median), 6–18 µs of
 * it in Redis, 107 bytes sent (its two keys under the default prefix) and 1
 * byte received.
 *
 * With `waitMs` it waits, blocking on the settled channels, until every run
 * of the page has settled or the time is up, reading only the page's runs
 * announced meanwhile, then the other runs still pending once more, so the
 * counts are current when it answers. `nextAction` says what to call next: the next page, or the runs still
 * pending, with `wait`.
 */
import { ErrandError, type NextAction, type RunResult } from "@errand/core";
import {
  decodeCursor,
  encodeCursor,
  isRunId,
  type LimitBounds,
  resolveLimit,
  wholeNumberOption,
} from "@errand/core/ops";
import {
  type AnnouncedResults,
  type RunStanding,
  readStoredResults,
  readStoredRuns,
  type StoredRuns,
} from "@errand/store/ops";
import { type CollectedRun, collectedRun } from "./collected-run.js";
import type { ReadsContext } from "./context.js";

/** The default and maximum `limit` of `collect`. */
export const COLLECT_LIMITS: LimitBounds = { default: 50, max: 500 };

/** The tool a parent agent collects its children with, named in `nextAction`. */
export const COLLECT_TOOL = "collect_agents";

/**
 * What `collect` returns: the counts of every run asked about, beside the
 * results of one page of them.
 */
export interface CollectResult {
  /** How many runs were asked about: every runId given, not only this page's. */
  total: number;
  /** Of every runId given: how many succeeded. */
  succeeded: number;
  /** Of every runId given: how many failed, counting those that do not exist (`not_found`). */
  failed: number;
  /** Of every runId given: how many were cancelled. */
  cancelled: number;
  /** Of every runId given: how many have not settled yet (no stored result). */
  pending: number;
  /** How many results this page holds. */
  count: number;
  /** This page's runs, in the order given. */
  results: CollectedRun[];
  /** Whether runs after this page remain. */
  hasMore: boolean;
  /** The cursor of the next page, when `hasMore`. */
  nextCursor?: string;
  /** The obvious next call, when pending runs or further pages remain. */
  nextAction?: NextAction;
}

/** Options of {@link collectRuns}. */
export interface CollectOptions {
  /** Wait up to this long for the page's pending runs to settle. Default 0. */
  waitMs?: number;
  /** Runs per page. Default 50, at most 500. */
  limit?: number;
  /** The `nextCursor` of the previous page of the same `runIds`. */
  cursor?: string;
}

/** The position a cursor of `runIds` points at. */
function positionOf(cursor: string | undefined, runIds: readonly string[]): number {
  if (cursor === undefined) return 0;
  const [position, lastRunId] = decodeCursor(cursor);
  if (
    typeof position !== "number" ||
    !Number.isInteger(position) ||
    position < 1 ||
    position > runIds.length ||
    runIds[position - 1] !== lastRunId
  ) {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: it belongs to another list of runIds; pass the same runIds with the nextCursor of their previous page",
    );
  }
  return position;
}

/** The next call after a page: the rest of the list, or the pending runs with `wait`. */
function nextActionOf(
  runIds: readonly string[],
  end: number,
  nextCursor: string | undefined,
  pendingIds: readonly string[],
): NextAction | undefined {
  const rest = runIds.slice(end);
  if (pendingIds.length === 0) {
    return nextCursor === undefined
      ? undefined
      : { tool: COLLECT_TOOL, args: { runIds: [...runIds], cursor: nextCursor } };
  }
  if (rest.length === 0)
    return { tool: COLLECT_TOOL, args: { runIds: [...pendingIds], wait: true } };
  return { tool: COLLECT_TOOL, args: { runIds: [...pendingIds, ...rest] } };
}

/**
 * Where the runs of a page and of the rest of the list stand, after waiting
 * up to `waitMs` for the page's pending runs. The first read (once the waiter
 * listens) is one round trip over the whole list. A result, once stored,
 * never changes, so each later read looks only at the page's runs still
 * pending — and, when announcements caused it, only at those announced
 * whose results the announcements did not carry: waiting on N runs costs
 * about N reads (2N when the results are too long to be carried), not one
 * read of all N per announcement. After a wait, the rest's pending runs are read once more.
 */
async function readPage(
  context: ReadsContext,
  pageIds: readonly string[],
  restIds: readonly string[],
  waitMs: number,
): Promise<StoredRuns> {
  const results = new Map<string, RunResult>();
  const standings = new Map<string, RunStanding>();
  const merge = (stored: StoredRuns) => {
    for (const [runId, result] of stored.results) results.set(runId, result);
    for (const [runId, standing] of stored.standings) standings.set(runId, standing);
  };
  let open: Set<string> | undefined;
  let reads = 0;
  const read = async (announced?: AnnouncedResults): Promise<number> => {
    reads += 1;
    if (open === undefined) {
      // Waiting, the page's runs are expected pending: a shard's lone one is read head first.
      merge(await readStoredRuns(context, pageIds, restIds, { expectPending: waitMs > 0 }));
      open = new Set(pageIds.filter((runId) => standings.get(runId) === "pending"));
      return open.size;
    }
    const still = open;
    const settle = (runId: string, result: RunResult | undefined) => {
      if (result === undefined) return;
      results.set(runId, result);
      standings.set(runId, result.status);
      still.delete(runId);
    };
    const candidates = [...(announced?.keys() ?? still)].filter((runId) => still.has(runId));
    // A result the announcement carried needs no read.
    const unread = candidates.filter((runId) => announced?.get(runId) === undefined);
    for (const runId of candidates) settle(runId, announced?.get(runId));
    const stored = await readStoredResults(context, unread);
    unread.forEach((runId, index) => {
      settle(runId, stored[index]);
    });
    return still.size;
  };
  await context.waiter.waitUntil(pageIds.filter(isRunId), waitMs, read, (left) => left === 0);
  const stale = reads > 1 ? restIds.filter((runId) => standings.get(runId) === "pending") : [];
  if (stale.length > 0) merge(await readStoredRuns(context, [], stale));
  return { results, standings };
}

/** How `runIds` stand, each counted once per time it is given; `not_found` counts as failed. */
function countStandings(runIds: readonly string[], standings: ReadonlyMap<string, RunStanding>) {
  const counts = { total: runIds.length, succeeded: 0, failed: 0, cancelled: 0, pending: 0 };
  for (const runId of runIds) {
    const standing = standings.get(runId) ?? "not_found";
    counts[standing === "not_found" ? "failed" : standing] += 1;
  }
  return counts;
}

/** A page of `collect`, and the runs of the whole list still pending, in order. */
export interface CollectedPage {
  page: CollectResult;
  /** Every run given (not only the page's) that has no stored result yet. */
  pendingIds: string[];
}

/** A page of `runIds` and what is still pending among all of them: see the module documentation. */
export async function collectPage(
  context: ReadsContext,
  runIds: readonly string[],
  options: CollectOptions = {},
): Promise<CollectedPage> {
  const limit = resolveLimit(options.limit, COLLECT_LIMITS);
  const waitMs = wholeNumberOption("waitMs", options.waitMs, 0, 0);
  const start = positionOf(options.cursor, runIds);
  const pageIds = runIds.slice(start, start + limit);
  const end = start + pageIds.length;
  const restIds = [...runIds.slice(0, start), ...runIds.slice(end)];

  const { results: stored, standings } = await readPage(context, pageIds, restIds, waitMs);
  const results = pageIds.map((runId) =>
    collectedRun(runId, stored.get(runId), standings.get(runId)),
  );
  const hasMore = end < runIds.length;
  const nextCursor = hasMore ? encodeCursor([end, runIds[end - 1]]) : undefined;
  const pagePending = results.filter((result) => result.status === "pending").map((r) => r.runId);
  const nextAction = nextActionOf(runIds, end, nextCursor, pagePending);
  const page: CollectResult = {
    ...countStandings(runIds, standings),
    count: results.length,
    results,
    hasMore,
    ...(nextCursor === undefined ? {} : { nextCursor }),
    ...(nextAction === undefined ? {} : { nextAction }),
  };
  return { page, pendingIds: runIds.filter((runId) => standings.get(runId) === "pending") };
}

/** Collects `runIds`: see the module documentation. */
export async function collectRuns(
  context: ReadsContext,
  runIds: readonly string[],
  options: CollectOptions = {},
): Promise<CollectResult> {
  return (await collectPage(context, runIds, options)).page;
}
