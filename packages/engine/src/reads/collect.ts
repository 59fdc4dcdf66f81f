/**
 * `collect(runIds, { waitMs, limit, cursor })`: the outcome of many runs at
 * once, as a batch (DESIGN §5) — one result per run in the order given, each
 * with its own `ok`, successes never thrown away because another run failed.
 *
 * A page holds up to `limit` runs (default 50, at most 500) from the
 * position the cursor encodes. `total`, `succeeded`, `failed`, `cancelled`
 * and `pending` count the page's results (`failed` includes runs that do not
 * exist). With `waitMs` it waits, blocking on the settled channels, until
 * every run of the page has settled or the time is up. `nextAction` says
 * what to call next: the next page, or the runs still pending, with `wait`.
 */
import {
  decodeCursor,
  ErrandError,
  encodeCursor,
  isRunId,
  type LimitBounds,
  type NextAction,
  type RunResult,
  resolveLimit,
} from "@errand/core";
import { wholeNumberOption } from "../collector/checks.js";
import type { ReadsContext } from "./context.js";
import { readStoredResults, readStoredRuns, type StoredRuns } from "./stored-results.js";

/** The default and maximum `limit` of `collect`. */
export const COLLECT_LIMITS: LimitBounds = { default: 50, max: 500 };

/** The tool a parent agent collects its children with, named in `nextAction`. */
export const COLLECT_TOOL = "collect_agents";

/** Where a collected run stands. */
export type CollectedStatus = "succeeded" | "failed" | "cancelled" | "pending" | "not_found";

/** One run of a `collect` batch. */
export interface CollectedRun {
  runId: string;
  /** True exactly when the run succeeded. */
  ok: boolean;
  status: CollectedStatus;
  /** The structured output of a run that succeeded with one. */
  output?: unknown;
  /** The run's closing text, when it has one. */
  text?: string;
  /** Why the run is not ok: its own error, `pending`, or `not_found`. */
  error?: { code: string; message: string };
  /** For a run that is not ok: whether asking again (or firing again) may succeed. */
  retryable?: boolean;
}

/** What `collect` returns. */
export interface CollectResult {
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  pending: number;
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

function settledRun(result: RunResult): CollectedRun {
  const text = result.text === undefined ? {} : { text: result.text };
  if (result.status === "succeeded") {
    const output = result.output === undefined ? {} : { output: result.output };
    return { runId: result.runId, ok: true, status: "succeeded", ...output, ...text };
  }
  const error = result.error ?? {
    code: result.status,
    message: `the run ${result.status}`,
    retryable: false,
  };
  return {
    runId: result.runId,
    ok: false,
    status: result.status,
    ...text,
    error: { code: error.code, message: error.message },
    retryable: error.retryable,
  };
}

function pendingRun(runId: string): CollectedRun {
  return {
    runId,
    ok: false,
    status: "pending",
    error: {
      code: "pending",
      message: "the run has not settled yet; collect it again to get its result",
    },
    retryable: true,
  };
}

function missingRun(runId: string): CollectedRun {
  const message = isRunId(runId)
    ? `no run ${runId}: it was never fired, or it expired`
    : `${JSON.stringify(runId)} is not a run id`;
  return {
    runId,
    ok: false,
    status: "not_found",
    error: { code: "not_found", message },
    retryable: false,
  };
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
 * The stored results of `runIds` and the runs still pending after up to
 * `waitMs`. The first read (once the waiter listens) finds the stored
 * results and which of the others exist; a result, once stored, never
 * changes, so each later read looks only at the runs still pending — and,
 * when announcements caused it, only at those announced: waiting on N runs
 * costs about 2N reads, not one read of all N per announcement.
 */
async function waitForStoredRuns(
  context: ReadsContext,
  runIds: readonly string[],
  waitMs: number,
): Promise<StoredRuns> {
  const results = new Map<string, RunResult>();
  let pending: Set<string> | undefined;
  const read = async (announced?: readonly string[]): Promise<number> => {
    if (pending === undefined) {
      const stored = await readStoredRuns(context, runIds);
      for (const [runId, result] of stored.results) results.set(runId, result);
      pending = new Set(stored.pending);
      return pending.size;
    }
    const open = pending;
    const candidates = (announced ?? [...open]).filter((runId) => open.has(runId));
    const stored = await readStoredResults(context, candidates);
    candidates.forEach((runId, index) => {
      const result = stored[index];
      if (result === undefined) return;
      results.set(runId, result);
      open.delete(runId);
    });
    return open.size;
  };
  const wellFormed = runIds.filter(isRunId);
  await context.waiter.waitUntil(wellFormed, waitMs, read, (left) => left === 0);
  return { results, pending: runIds.filter((runId) => pending?.has(runId)) };
}

/** Collects `runIds`: see the module documentation. */
export async function collectRuns(
  context: ReadsContext,
  runIds: readonly string[],
  options: CollectOptions = {},
): Promise<CollectResult> {
  const limit = resolveLimit(options.limit, COLLECT_LIMITS);
  const waitMs = wholeNumberOption("waitMs", options.waitMs, 0, 0);
  const start = positionOf(options.cursor, runIds);
  const pageIds = runIds.slice(start, start + limit);
  const end = start + pageIds.length;

  const stored = await waitForStoredRuns(context, pageIds, waitMs);
  const pendingSet = new Set(stored.pending);

  const results = pageIds.map((runId): CollectedRun => {
    const result = stored.results.get(runId);
    if (result !== undefined) return settledRun(result);
    return pendingSet.has(runId) ? pendingRun(runId) : missingRun(runId);
  });
  const count = (...statuses: CollectedStatus[]) =>
    results.filter((result) => statuses.includes(result.status)).length;
  const hasMore = end < runIds.length;
  const nextCursor = hasMore ? encodeCursor([end, runIds[end - 1]]) : undefined;
  const pendingIds = results.filter((result) => result.status === "pending").map((r) => r.runId);
  const nextAction = nextActionOf(runIds, end, nextCursor, pendingIds);
  return {
    total: results.length,
    succeeded: count("succeeded"),
    failed: count("failed", "not_found"),
    cancelled: count("cancelled"),
    pending: pendingIds.length,
    results,
    hasMore,
    ...(nextCursor === undefined ? {} : { nextCursor }),
    ...(nextAction === undefined ? {} : { nextAction }),
  };
}
