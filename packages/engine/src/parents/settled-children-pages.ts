/**
 * The pages of a parent's children once none of them is pending
 * (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child), at a cost bounded by the
 * page, not by the number of children. A settled run's result never
 * changes, so the counts of a page over every child, once they say nothing
 * is pending, hold for every later page as long as the parent has the same
 * number of children. The cursor of such a page carries them — its position
 * and last runId (what any `collect` cursor holds), then the counts — and
 * the next page reads only its own slice of the children index and its own
 * runs' results. A cursor without counts (a first page, one written before
 * this, one of a page with runs pending), or a parent that has spawned since,
 * takes the full read of `collect-children.ts`. A worker that does not know
 * the counts reads the cursor's position and last runId, as before.
 */
import { ErrandError } from "@errand/core";
import { decodeCursor, encodeCursor, resolveLimit } from "@errand/core/ops";
import { readStoredRuns } from "@errand/store/ops";
import { COLLECT_LIMITS, COLLECT_TOOL, type CollectResult } from "../reads/collect.js";
import { collectedRun } from "../reads/collected-run.js";
import type { ReadsContext } from "../reads/context.js";

/** What every child counts to, none pending: carried by the cursor of a page over every child. */
export interface SettledCounts {
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** A cursor's position and last runId, with the settled counts when it carries them. */
interface ChildrenCursor {
  position: number;
  lastRunId: string;
  counts?: SettledCounts;
}

function isSettledCounts(value: unknown): value is SettledCounts {
  if (typeof value !== "object" || value === null) return false;
  const counts = value as Record<string, unknown>;
  return ["total", "succeeded", "failed", "cancelled"].every((field) =>
    Number.isInteger(counts[field]),
  );
}

/** The cursor's parts; `undefined` for one that is not a cursor of a list of runs. */
function readChildrenCursor(cursor: string): ChildrenCursor | undefined {
  const [position, lastRunId, counts] = decodeCursor(cursor);
  if (typeof position !== "number" || !Number.isInteger(position) || position < 1) return undefined;
  if (typeof lastRunId !== "string") return undefined;
  return { position, lastRunId, ...(isSettledCounts(counts) ? { counts } : {}) };
}

/** The cursor of the page ending after `lastRunId` at `position`, carrying `counts`. */
export function settledChildrenCursor(
  position: number,
  lastRunId: string,
  counts: SettledCounts,
): string {
  const { total, succeeded, failed, cancelled } = counts;
  return encodeCursor([position, lastRunId, { total, succeeded, failed, cancelled }]);
}

/**
 * The counts of `page` when it says none of the runs is pending; else
 * `undefined`.
 */
export function settledCountsOf(page: CollectResult): SettledCounts | undefined {
  if (page.pending > 0) return undefined;
  const { total, succeeded, failed, cancelled } = page;
  return { total, succeeded, failed, cancelled };
}

/** Where a page starts: after `lastRunId` at `position` − 1, or at the first child (position 0, no runId). */
type PageStart = { position: number; lastRunId?: string };

/**
 * The page of every child of `parentRunId` that `cursor` points at, read
 * from its slice of the children index alone, when the cursor carries the
 * settled counts and the parent still has that many children; else
 * `undefined` (the caller reads every child). Throws `invalid_spec` when the
 * cursor's last runId is not the child at its position.
 */
export async function readSettledChildrenPage(
  reads: ReadsContext,
  parentRunId: string,
  cursor: string,
  limit: number | undefined,
): Promise<CollectResult | undefined> {
  const at = readChildrenCursor(cursor);
  if (at?.counts === undefined) return undefined;
  return settledPage(reads, parentRunId, at, at.counts, limit);
}

/**
 * The page of every child of `parentRunId` from `cursor` (none: the first
 * page), with `counts`: the children's counts kept as they settled
 * (`children-counts.ts`), which add up and say none is pending. Read from
 * its slice alone; `undefined` (the caller tallies every child) when the
 * cursor is not one of a list of runs, the parent's children changed, or a
 * run of the page was counted before its result was stored. Throws
 * `invalid_spec` as {@link readSettledChildrenPage} does.
 */
export async function readCountedChildrenPage(
  reads: ReadsContext,
  parentRunId: string,
  counts: SettledCounts,
  cursor: string | undefined,
  limit: number | undefined,
): Promise<CollectResult | undefined> {
  const at = cursor === undefined ? { position: 0 } : readChildrenCursor(cursor);
  if (at === undefined) return undefined;
  const page = await settledPage(reads, parentRunId, at, counts, limit);
  return page?.results.some((run) => run.status === "pending") ? undefined : page;
}

/**
 * The page of every child of `parentRunId` from `at`, none of them pending
 * by `counts`, read from its slice of the children index alone; `undefined`
 * when the parent no longer has `counts.total` children. Throws
 * `invalid_spec` when `at`'s last runId is not the child before its position.
 */
async function settledPage(
  reads: ReadsContext,
  parentRunId: string,
  { position, lastRunId }: PageStart,
  counts: SettledCounts,
  limit: number | undefined,
): Promise<CollectResult | undefined> {
  const key = reads.keys.children(parentRunId);
  const size = resolveLimit(limit, COLLECT_LIMITS);
  // From the run before the page, to check the cursor's last runId, when there is one.
  const from = lastRunId === undefined ? position : position - 1;
  const [total, slice] = await Promise.all([
    reads.redis.zcard(key),
    reads.redis.zrange(key, from, position + size - 1),
  ]);
  if (total !== counts.total) return undefined;
  if (lastRunId !== undefined && slice[0] !== lastRunId) {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: it belongs to another list of runIds; pass the same runIds with the nextCursor of their previous page",
    );
  }
  const pageIds = lastRunId === undefined ? slice : slice.slice(1);
  const { results: stored, standings } = await readStoredRuns(reads, pageIds);
  const results = pageIds.map((runId) =>
    collectedRun(runId, stored.get(runId), standings.get(runId)),
  );
  const end = position + pageIds.length;
  const last = pageIds.at(-1);
  const nextCursor =
    end < total && last !== undefined ? settledChildrenCursor(end, last, counts) : undefined;
  const { succeeded, failed, cancelled } = counts;
  return {
    total: counts.total,
    succeeded,
    failed,
    cancelled,
    pending: 0,
    count: results.length,
    results,
    hasMore: nextCursor !== undefined,
    ...(nextCursor === undefined
      ? {}
      : { nextCursor, nextAction: { tool: COLLECT_TOOL, args: { cursor: nextCursor } } }),
  };
}
