/**
 * A parent's children counted as they settle
 * (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child):
 * the collector moves each settled child out of the parent's pending
 * children and counts it under its status (`lua/count-children-2.lua`), so
 * the counts of every child are read in one transaction — the children
 * index's size, the pending set's and the counts — however many children
 * there are. They are trusted only when they add up: every child linked is
 * pending or counted. A parent whose children were linked before the counts
 * (a rolling upgrade), one with a child withdrawn by an older version, or
 * one whose pending set or counts expired, does not add up, and its
 * children are tallied the full way instead (`children-tally.ts`).
 */
import type { ReadsContext } from "../reads/context.js";

/** The counts of every child of a parent, as a `collect` page carries them. */
export interface ChildrenCounts {
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  pending: number;
}

/** `value` as a count: 0 for none. */
function countOf(value: string | null | undefined): number {
  const count = Number(value ?? 0);
  return Number.isSafeInteger(count) && count >= 0 ? count : Number.NaN;
}

/**
 * The counts of every child of `parentRunId` when they add up, else
 * `undefined` (tally the children instead).
 */
export async function readChildrenCounts(
  reads: Pick<ReadsContext, "redis" | "keys">,
  parentRunId: string,
): Promise<ChildrenCounts | undefined> {
  const { redis, keys } = reads;
  const replies = await redis
    .multi()
    .zcard(keys.children(parentRunId))
    .scard(keys.childrenPending(parentRunId))
    .hmget(keys.childrenCounts(parentRunId), "succeeded", "failed", "cancelled")
    .exec();
  if (replies === null || replies.some(([error]) => error !== null)) return undefined;
  const [[, total], [, pending], [, settled]] = replies as [
    [null, number],
    [null, number],
    [null, (string | null)[]],
  ];
  const [succeeded, failed, cancelled] = settled.map(countOf) as [number, number, number];
  const counts = { total, succeeded, failed, cancelled, pending };
  return total === pending + succeeded + failed + cancelled ? counts : undefined;
}
