/**
 * A parent parked for its children set (`run-parked` with `waitForChildren`:
 * more runs pending than a park lists) is asked whether it still waits from
 * its children index, newest children first, a slice at a time, stopping at
 * the first slice with a child pending: queued children settle about in the
 * order they were created, so one slice answers while they run. The
 * children's counts, kept as they settle (`children-counts.ts`), answer
 * first: when they add up and say none is pending, no child is read; for a
 * parent without them, the look that finds every child settled reads them
 * all (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child).
 */
import { pendingRunIds } from "@errand/store/ops";
import type { ReadsContext } from "../reads/context.js";
import { readChildrenCounts } from "./children-counts.js";

/** The children read at a time. */
const PENDING_CHILDREN_SLICE = 1_000;

/** The newest slice of a parent's children with runs pending. */
export interface PendingChildrenSlice {
  /** Its children still pending, in creation order; `[]` when none of the children read is. */
  pending: string[];
  /**
   * The position of its first child in the children index: every child
   * from there on had settled when read but `pending`.
   */
  from: number;
}

/**
 * Whether a child of the newest slice of `parentRunId`'s children is
 * pending, as its stored result says: what a waiting parent whose counts say
 * it has children pending checks before it parks on them, so that counts
 * gone stale (written by no collector) never park it while none is.
 */
export async function newestSliceHasPending(
  reads: ReadsContext,
  parentRunId: string,
): Promise<boolean> {
  const newest = await reads.redis.zrange(
    reads.keys.children(parentRunId),
    -PENDING_CHILDREN_SLICE,
    -1,
  );
  return (await pendingRunIds(reads, newest)).length > 0;
}

/**
 * The pending children of the newest slice of `parentRunId`'s children
 * before position `end` (default: every child) that holds any; none when
 * the counts say none is pending. A child the store no longer has is not
 * pending (as `collect` counts it: failed).
 */
export async function newestPendingChildren(
  reads: ReadsContext,
  parentRunId: string,
  end?: number,
  slice = PENDING_CHILDREN_SLICE,
): Promise<PendingChildrenSlice> {
  const counts = await readChildrenCounts(reads, parentRunId);
  if (counts?.pending === 0) return { pending: [], from: 0 };
  const key = reads.keys.children(parentRunId);
  let to = end ?? (await reads.redis.zcard(key));
  for (; to > 0; to -= slice) {
    const from = Math.max(0, to - slice);
    const runIds = await reads.redis.zrange(key, from, to - 1);
    const pending = await pendingRunIds(reads, runIds);
    if (pending.length > 0) return { pending, from };
  }
  return { pending: [], from: 0 };
}
