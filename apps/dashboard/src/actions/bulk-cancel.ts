/**
 * Cancelling a selection of runs at once from the runs list: the same
 * cancel as one run's (`cancelRun`), for at most {@link MAX_BULK_CANCEL}
 * runs, answered run by run — a run already settled, unknown or malformed
 * answers for itself and never stops the others.
 */
import { isErrandError } from "@errand/core";
import type { CancelResult } from "@errand/engine";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import { cancelRun } from "./run-actions.js";

/** The most runs one bulk cancel may name. */
export const MAX_BULK_CANCEL = 100;

/** How many of a bulk cancel's runs are cancelled at once. */
const CANCEL_GROUP = 8;

/** The body of `POST /api/runs/cancel`. */
export const BulkCancelBody = z.strictObject({
  runIds: z.array(z.string()).min(1).max(MAX_BULK_CANCEL),
  cascade: z.boolean().optional(),
  reason: z.string().max(500).optional(),
});
/** A bulk cancel request. */
export type BulkCancelBody = z.infer<typeof BulkCancelBody>;

/** What became of one run of a bulk cancel: its `CancelResult`, or why it could not be cancelled. */
export type BulkCancelItem =
  | ({ ok: true } & CancelResult)
  | { ok: false; runId: string; error: { code: string; message: string } };

/** `POST /api/runs/cancel`: one answer a run, in the order asked (each run once). */
export interface BulkCancelResult {
  results: BulkCancelItem[];
}

async function cancelOne(
  context: DashboardContext,
  runId: string,
  body: BulkCancelBody,
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

/** Cancels each run of `body` (with `cascade`, its descendants too), a group at a time. */
export async function cancelRuns(
  context: DashboardContext,
  body: BulkCancelBody,
): Promise<BulkCancelResult> {
  const runIds = [...new Set(body.runIds)];
  const results: BulkCancelItem[] = [];
  for (let start = 0; start < runIds.length; start += CANCEL_GROUP) {
    const group = runIds.slice(start, start + CANCEL_GROUP);
    results.push(...(await Promise.all(group.map((runId) => cancelOne(context, runId, body)))));
  }
  return { results };
}
