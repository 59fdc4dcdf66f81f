/**
 * What `collect_agents` does in the engine: a page of the client's `collect`
 * over the runs the parent asks for — by default every child of the calling
 * run, in creation order (runIds sort by creation time) — or, when it asked
 * to wait and any of those runs is still pending, the runs to park for.
 * Pending means what `collect` reports: no stored result yet, so a parent
 * woken when they all have one finds none of them pending. One read answers
 * both: the page, and which runs of the whole list are pending.
 */
import type { NextAction } from "@errand/core";
import { COLLECT_TOOL, type CollectResult, collectPage } from "../reads/collect.js";
import type { ReadsContext } from "../reads/context.js";

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

/** A page of results, or the runs still pending (of `total` asked for) that a waiting parent parks for. */
export type CollectChildrenOutcome = { page: CollectResult } | { waitFor: string[]; total: number };

/** Every child of `parentRunId`, in creation order. */
async function childrenOf(reads: ReadsContext, parentRunId: string): Promise<string[]> {
  return reads.redis.zrange(reads.keys.children(parentRunId), 0, -1);
}

/**
 * The next call when every child was asked for: the next page by its cursor
 * alone while this page has no pending run, or else every child again with
 * `wait`.
 */
function nextActionForChildren(page: CollectResult): NextAction | undefined {
  if (page.nextAction === undefined) return undefined;
  const pagePending = page.results.some((run) => run.status === "pending");
  if (!pagePending && page.nextCursor !== undefined) {
    return { tool: COLLECT_TOOL, args: { cursor: page.nextCursor } };
  }
  return { tool: COLLECT_TOOL, args: { wait: true } };
}

/** Collects for the parent; throws `invalid_spec` for a bad `limit` or cursor. */
export async function collectChildren(
  reads: ReadsContext,
  request: CollectChildrenRequest,
): Promise<CollectChildrenOutcome> {
  const everyChild = request.runIds === undefined;
  const runIds = request.runIds ?? (await childrenOf(reads, request.parentRunId));
  const { page, pendingIds } = await collectPage(reads, runIds, {
    ...(request.limit === undefined ? {} : { limit: request.limit }),
    ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
  });
  if (request.wait && pendingIds.length > 0) return { waitFor: pendingIds, total: runIds.length };
  if (!everyChild) return { page };
  const { nextAction: _forTheList, ...rest } = page;
  const nextAction = nextActionForChildren(page);
  return { page: nextAction === undefined ? rest : { ...rest, nextAction } };
}
