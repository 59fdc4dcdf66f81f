/**
 * A page over every child of a parent when no cursor carries their counts
 * (the first page, the one after a wait, a page with runs pending): the
 * counts and the runs still pending are tallied a slice of the children
 * index at a time — {@link CHILDREN_SLICE} runIds and their standings (one
 * character a run) in hand at once — and only the page's own runs are read
 * whole. A parent's worker holds a slice and a page, not every child, however
 * many it spawned (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child).
 * A waiting parent with runs pending gets them instead, to park for: at
 * most {@link PARKED_RUNS_LISTED} of them, past which it parks for its
 * children set.
 */
import { ErrandError } from "@errand/core";
import { decodeCursor, encodeCursor, resolveLimit } from "@errand/core/ops";
import { type RunStanding, readStoredRuns } from "@errand/store/ops";
import { COLLECT_LIMITS, type CollectResult } from "../reads/collect.js";
import { collectedRun } from "../reads/collected-run.js";
import type { ReadsContext } from "../reads/context.js";

/** The children tallied at a time: the runIds and standings one read holds. */
const CHILDREN_SLICE = 1_000;

/**
 * The most pending runs a waiting parent parks for by runId; with more, it
 * parks for its children set (`waitForChildren`: their count), so that what
 * it logs and holds while parked does not grow with its children.
 */
export const PARKED_RUNS_LISTED = 1_000;

/** The counts of every child, as a `collect` page carries them. */
type ChildrenCounts = Pick<
  CollectResult,
  "total" | "succeeded" | "failed" | "cancelled" | "pending"
>;

/** The counts of every child of a parent, and how the runs of a page stood when tallied. */
interface ChildrenTally {
  counts: ChildrenCounts;
  /**
   * The runs still pending in creation order: only when asked for (a
   * waiting parent parks for them), and only the first
   * {@link PARKED_RUNS_LISTED} (`counts.pending` says how many there are).
   */
  pendingIds: string[];
  /** How each run at the page's positions stood in its slice. */
  onPage: Map<string, RunStanding>;
}

/** Counts `standing` in `counts`: a run that does not exist counts as failed, as `collect` does. */
function count(counts: ChildrenCounts, standing: RunStanding, by: 1 | -1): void {
  counts[standing === "not_found" ? "failed" : standing] += by;
}

/**
 * Every child of the index at `key`, tallied `slice` at a time; the runs
 * pending kept when `keepPending` (the first `listed`), and the standings of those at positions
 * `page` (from, to: to excluded).
 */
async function tallyChildren(
  reads: ReadsContext,
  key: string,
  { slice, listed }: TallySizes,
  keepPending: boolean,
  page: readonly [number, number],
): Promise<ChildrenTally> {
  const counts: ChildrenCounts = { total: 0, succeeded: 0, failed: 0, cancelled: 0, pending: 0 };
  const pendingIds: string[] = [];
  const onPage = new Map<string, RunStanding>();
  for (let start = 0; ; start += slice) {
    const runIds = await reads.redis.zrange(key, start, start + slice - 1);
    const { standings } = await readStoredRuns(reads, [], runIds);
    runIds.forEach((runId, index) => {
      const standing = standings.get(runId) ?? "not_found";
      const position = start + index;
      counts.total += 1;
      count(counts, standing, 1);
      const room = pendingIds.length < listed;
      if (keepPending && room && standing === "pending") pendingIds.push(runId);
      if (position >= page[0] && position < page[1]) onPage.set(runId, standing);
    });
    if (runIds.length < slice) return { counts, pendingIds, onPage };
  }
}

/**
 * Where the page `cursor` points at starts in the children index: 0 without
 * a cursor. Throws `invalid_spec` for a cursor that is not one of a list of
 * runs, or whose last runId is not the child before that position.
 */
async function pageStart(
  reads: ReadsContext,
  key: string,
  cursor: string | undefined,
): Promise<number> {
  if (cursor === undefined) return 0;
  const [position, lastRunId] = decodeCursor(cursor);
  const valid = typeof position === "number" && Number.isInteger(position) && position >= 1;
  const before = valid ? await reads.redis.zrange(key, position - 1, position - 1) : [];
  if (!valid || before[0] === undefined || before[0] !== lastRunId) {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: it belongs to another list of runIds; pass the same runIds with the nextCursor of their previous page",
    );
  }
  return position;
}

/** How many children a tally reads at a time (`slice`), and how many pending runs a park lists at most (`listed`). */
interface TallySizes {
  slice: number;
  listed: number;
}

/**
 * What {@link collectEveryChild} answers: a page, or what a waiting parent
 * parks for — the runs pending, or, with more than {@link PARKED_RUNS_LISTED}
 * pending, its children set and how many of them are.
 */
export type EveryChildOutcome =
  | { page: CollectResult }
  | { waitFor: string[]; total: number }
  | { waitForChildren: number; total: number };

/**
 * A page of every child of `parentRunId` from `cursor` (a `collect` cursor:
 * position and last runId), with the counts of all of them; or, with `wait`
 * and any pending, the runs pending. The page carries no `nextAction`: the
 * caller adds the one for every child. `sizes` (tests take fewer): the
 * children tallied at a time, and the most pending runs a park lists.
 * Throws `invalid_spec` for a bad cursor.
 */
export async function collectEveryChild(
  reads: ReadsContext,
  request: { parentRunId: string; wait?: boolean; limit?: number; cursor?: string },
  sizes: Partial<TallySizes> = {},
): Promise<EveryChildOutcome> {
  const { slice = CHILDREN_SLICE, listed = PARKED_RUNS_LISTED } = sizes;
  const key = reads.keys.children(request.parentRunId);
  const size = resolveLimit(request.limit, COLLECT_LIMITS);
  const start = await pageStart(reads, key, request.cursor);
  const wait = request.wait ?? false;
  const page = [start, start + size] as const;
  const tallied = await tallyChildren(reads, key, { slice, listed }, wait, page);
  const { counts, pendingIds, onPage } = tallied;
  if (wait && counts.pending > listed) {
    return { waitForChildren: counts.pending, total: counts.total };
  }
  if (wait && pendingIds.length > 0) return { waitFor: pendingIds, total: counts.total };
  const pageIds = await reads.redis.zrange(key, start, start + size - 1);
  const { results: stored, standings } = await readStoredRuns(reads, pageIds);
  // A page's run may have settled since its slice was tallied: the page's standing counts.
  for (const runId of pageIds) {
    const then = onPage.get(runId);
    const now = standings.get(runId) ?? "not_found";
    if (then === undefined || then === now) continue;
    count(counts, then, -1);
    count(counts, now, 1);
  }
  const results = pageIds.map((runId) =>
    collectedRun(runId, stored.get(runId), standings.get(runId)),
  );
  const end = start + pageIds.length;
  const last = pageIds.at(-1);
  const nextCursor =
    end < counts.total && last !== undefined ? encodeCursor([end, last]) : undefined;
  return {
    page: {
      ...counts,
      count: results.length,
      results,
      hasMore: nextCursor !== undefined,
      ...(nextCursor === undefined ? {} : { nextCursor }),
    },
  };
}
