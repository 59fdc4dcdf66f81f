/**
 * Cancelling runs at once from the runs list — a selection (`runIds`), or
 * the open runs a filter of the list matches (`filter`): the same cancel as
 * one run's (`cancelRun`), for at most {@link MAX_BULK_CANCEL} runs, answered
 * run by run — a run already settled, unknown or malformed answers for
 * itself and never stops the others. A filter matching more open runs says
 * so (`more`): send it again for the next ones.
 */
import { isErrandError } from "@errand/core";
import type { CancelResult } from "@errand/engine";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import type { SearchMetadataReader } from "../reads/search-metadata.js";
import { openRunsMatching, RunsFilter } from "./open-runs-matching.js";
import { cancelRun } from "./run-actions.js";

/** The most runs one bulk cancel may name. */
export const MAX_BULK_CANCEL = 100;

/** How many of a bulk cancel's runs are cancelled at once. */
const CANCEL_GROUP = 8;

/** The body of `POST /api/runs/cancel`: `runIds` or `filter`, not both. */
export const BulkCancelBody = z
  .strictObject({
    runIds: z.array(z.string()).min(1).max(MAX_BULK_CANCEL).optional(),
    filter: RunsFilter.optional(),
    cascade: z.boolean().optional(),
    reason: z.string().max(500).optional(),
  })
  .refine((body) => (body.runIds === undefined) !== (body.filter === undefined), {
    message: "send runIds (a selection) or filter (the runs list's filters), one of them",
  });
/** A bulk cancel request. */
export type BulkCancelBody = z.infer<typeof BulkCancelBody>;

/** What became of one run of a bulk cancel: its `CancelResult`, or why it could not be cancelled. */
export type BulkCancelItem =
  | ({ ok: true } & CancelResult)
  | { ok: false; runId: string; error: { code: string; message: string } };

/**
 * `POST /api/runs/cancel`: one answer a run, in the order asked (each run
 * once); for a filter, in the order found, and `more` when more open runs
 * match than were cancelled.
 */
export interface BulkCancelResult {
  results: BulkCancelItem[];
  more?: boolean;
}

async function cancelOne(
  context: DashboardContext,
  runId: string,
  body: Pick<BulkCancelBody, "cascade" | "reason">,
): Promise<BulkCancelItem> {
  try {
    return { ok: true, ...(await cancelRun(context, runId, body)) };
  } catch (error) {
    if (!isErrandError(error)) {
      context.options.logger.error({ err: error, runId }, "bulk cancel of a run failed");
      return { ok: false, runId, error: { code: "internal", message: "see the dashboard's log" } };
    }
    return { ok: false, runId, error: { code: error.code, message: error.message } };
  }
}

/**
 * Cancels each run `body` names, or each open run its filter matches (up to
 * {@link MAX_BULK_CANCEL}, read through `reader` for a search), with
 * `cascade` their descendants too, a group at a time.
 */
export async function cancelRuns(
  context: DashboardContext,
  reader: SearchMetadataReader,
  body: BulkCancelBody,
): Promise<BulkCancelResult> {
  if (body.filter !== undefined) {
    const matching = await openRunsMatching(context, reader, body.filter, MAX_BULK_CANCEL);
    const { results } = await cancelEach(context, matching.runIds, body);
    return { results, more: matching.more };
  }
  return cancelEach(context, [...new Set(body.runIds ?? [])], body);
}

async function cancelEach(
  context: DashboardContext,
  runIds: readonly string[],
  body: Pick<BulkCancelBody, "cascade" | "reason">,
): Promise<BulkCancelResult> {
  const results: BulkCancelItem[] = [];
  for (let start = 0; start < runIds.length; start += CANCEL_GROUP) {
    const group = runIds.slice(start, start + CANCEL_GROUP);
    results.push(...(await Promise.all(group.map((runId) => cancelOne(context, runId, body)))));
  }
  return { results };
}
