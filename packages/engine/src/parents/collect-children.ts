/**
 * What `collect_agents` does in the engine: a page of the client's `collect`
 * over the runs the parent asks for — by default every child of the calling
 * run, in creation order (runIds sort by creation time) — or, when it asked
 * to wait and any of those runs is still pending, the runs to park for.
 * Pending means what `collect` reports: no stored result yet, so a parent
 * woken when they all have one finds none of them pending. Over runIds it
 * names, one read answers both: the page, and which runs of the list are
 * pending; over every child, the children are tallied a slice at a time
 * (`children-tally.ts`), or not at all once a cursor carries their counts,
 * or once the counts kept as they settle say none is pending
 * (`settled-children-pages.ts`, `children-counts.ts`).
 */
import type { NextAction } from "@errand/core";
import { decodeCursor } from "@errand/core/ops";
import { COLLECT_TOOL, type CollectResult, collectPage } from "../reads/collect.js";
import type { ReadsContext } from "../reads/context.js";
import { readChildrenCounts } from "./children-counts.js";
import { collectEveryChild, type EveryChildOutcome, PARKED_RUNS_LISTED } from "./children-tally.js";
import { newestSliceHasPending } from "./pending-children.js";
import {
  readCountedChildrenPage,
  readSettledChildrenPage,
  settledChildrenCursor,
  settledCountsOf,
} from "./settled-children-pages.js";

/** What a parent asks `collect_agents` for. */
export interface CollectChildrenRequest {
  parentRunId: string;
  /** The runs to collect; default every child of the parent. */
  runIds?: readonly string[];
  /** Park until none of the runs is pending. */
  wait?: boolean;
  limit?: number;
  cursor?: string;
}

/**
 * A page of results, or what a waiting parent parks for: the runs still
 * pending (of `total` asked for), or its children set (`children-tally.ts`).
 */
export type CollectChildrenOutcome = EveryChildOutcome;

/**
 * The next call after a page over every child: the whole set again with
 * `wait` while the page has runs pending, else the next page by its cursor.
 */
function nextActionForChildren(page: CollectResult): NextAction | undefined {
  if (page.results.some((run) => run.status === "pending")) {
    return { tool: COLLECT_TOOL, args: { wait: true } };
  }
  return page.nextCursor === undefined
    ? undefined
    : { tool: COLLECT_TOOL, args: { cursor: page.nextCursor } };
}

/**
 * A page over every child with, once none is pending, a cursor carrying
 * the counts (`settled-children-pages.ts`), and the next call for every child.
 */
function childrenPage(page: CollectResult): CollectResult {
  const { nextAction: _forTheList, nextCursor: listCursor, ...rest } = page;
  const counts = settledCountsOf(page);
  const last = page.results.at(-1);
  const nextCursor =
    counts === undefined || listCursor === undefined || last === undefined
      ? listCursor
      : settledChildrenCursor(decodedPosition(listCursor), last.runId, counts);
  const withCursor = nextCursor === undefined ? rest : { ...rest, nextCursor };
  const nextAction = nextActionForChildren(withCursor);
  return nextAction === undefined ? withCursor : { ...withCursor, nextAction };
}

/** The position a `collect` cursor (ours) holds. */
function decodedPosition(cursor: string): number {
  return decodeCursor(cursor)[0] as number;
}

/**
 * A page over every child, or what a waiting parent parks for: from the
 * counts its cursor carries; else from the counts kept as the children
 * settle, when they add up — none pending: the page; with `wait`, more
 * pending than a park lists and a child of the newest slice pending by its
 * result: its children set —; else from every child tallied.
 */
async function collectOverEveryChild(
  reads: ReadsContext,
  request: CollectChildrenRequest,
): Promise<CollectChildrenOutcome> {
  const { parentRunId, cursor, limit } = request;
  const settled =
    cursor === undefined
      ? undefined
      : await readSettledChildrenPage(reads, parentRunId, cursor, limit);
  if (settled !== undefined) return { page: childrenPage(settled) };
  const counts = await readChildrenCounts(reads, parentRunId);
  if (counts?.pending === 0) {
    const counted = await readCountedChildrenPage(reads, parentRunId, counts, cursor, limit);
    if (counted !== undefined) return { page: childrenPage(counted) };
  } else if (
    request.wait &&
    counts !== undefined &&
    counts.pending > PARKED_RUNS_LISTED &&
    (await newestSliceHasPending(reads, parentRunId))
  ) {
    return { waitForChildren: counts.pending, total: counts.total };
  }
  const outcome = await collectEveryChild(reads, request);
  return "page" in outcome ? { page: childrenPage(outcome.page) } : outcome;
}

/**
 * Collects for the parent; throws `invalid_spec` for a bad `limit` or
 * cursor. A page over every child after one that found none pending, or
 * one whose parent's counts kept as its children settled say none is
 * pending, reads only its own runs (`settled-children-pages.ts`); any other
 * page over every child tallies them a slice at a time (`children-tally.ts`); a page over
 * runIds given reads every one of them.
 */
export async function collectChildren(
  reads: ReadsContext,
  request: CollectChildrenRequest,
): Promise<CollectChildrenOutcome> {
  const { runIds } = request;
  if (runIds === undefined) return collectOverEveryChild(reads, request);
  const { page, pendingIds } = await collectPage(reads, runIds, {
    ...(request.limit === undefined ? {} : { limit: request.limit }),
    ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
  });
  if (request.wait && pendingIds.length > 0) return { waitFor: pendingIds, total: runIds.length };
  return { page };
}
