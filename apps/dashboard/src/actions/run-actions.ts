/**
 * What the dashboard may do to runs: cancel one (optionally with its
 * descendants) and fire one again with the same input ("replay").
 */
import { ErrandError, runNotFound } from "@errand/core";
import type { CancelResult, FireResult } from "@errand/engine";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import { readRunQueued } from "../reads/run-queued.js";
import { requireRunId } from "../reads/run-view.js";

/** Who the dashboard's cancels are by, in `cancel-requested`. */
export const CANCELLED_BY = "dashboard";

/** The metadata key a replay carries: the runId it replays. */
export const REPLAY_OF_KEY = "replayOf";

/** The body of `POST /api/runs/:runId/cancel`. */
export const CancelBody = z.strictObject({
  cascade: z.boolean().optional(),
  reason: z.string().max(500).optional(),
});
/** A cancel request. */
export type CancelBody = z.infer<typeof CancelBody>;

/** Cancels the run (and with `cascade` its descendants). */
export function cancelRun(
  context: DashboardContext,
  runId: string,
  body: CancelBody,
): Promise<CancelResult> {
  return context.errand.cancel(requireRunId(runId), {
    by: CANCELLED_BY,
    cascade: body.cascade ?? false,
    reason: body.reason ?? "cancelled from the dashboard",
  });
}

/**
 * Fires a new run of the same agent with the same input, output schema and
 * metadata (plus `replayOf`), and the same time allowance when the run had a
 * deadline. The replay is a run of its own: it has no parent.
 */
export async function replayRun(context: DashboardContext, runId: string): Promise<FireResult> {
  const queued = await readRunQueued(context, requireRunId(runId));
  if (queued === undefined) throw runNotFound(runId);
  const { agent, input, outputSchema, metadata, limits } = queued.data;
  const deadlineMs =
    limits.deadlineAt === undefined
      ? undefined
      : Date.parse(limits.deadlineAt) - Date.parse(queued.at);
  if (deadlineMs !== undefined && !(deadlineMs > 0)) {
    throw new ErrandError("internal", `run ${runId} has a deadline before it was queued`);
  }
  return context.errand.fire({
    agent,
    input,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    metadata: { ...metadata, [REPLAY_OF_KEY]: runId },
    ...(deadlineMs === undefined ? {} : { deadlineMs: Math.round(deadlineMs) }),
  });
}
