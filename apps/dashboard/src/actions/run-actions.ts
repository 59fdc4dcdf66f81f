/**
 * What the dashboard may do to runs: cancel one (optionally with its
 * descendants), fire one again with the same input ("replay"), and answer
 * the waitpoint it waits on.
 */
import { ErrandError } from "@errand/core";
import { parseWaitpointToken, runNotFound } from "@errand/core/ops";
import type { CancelResult, CompletedWaitpoint, FireResult } from "@errand/engine";
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

/** Who answers from the dashboard when the form names no one. */
const ANSWERED_BY = "dashboard";

/** The body of `POST /api/runs/:runId/answer`: the waitpoint's token, the answer, and who answers. */
export const AnswerBody = z.strictObject({
  token: z.string().min(1).max(1_000),
  answer: z.unknown(),
  answeredBy: z.string().min(1).max(200).optional(),
});
/** An answer to a waitpoint. */
export type AnswerBody = z.infer<typeof AnswerBody>;

/**
 * Answers the waitpoint `body.token` of run `runId`. Throws `invalid_spec`
 * for a token of another run, and what `waitpoints.complete` throws.
 */
export function answerWaitpoint(
  context: DashboardContext,
  runId: string,
  body: AnswerBody,
): Promise<CompletedWaitpoint> {
  if (parseWaitpointToken(body.token).runId !== requireRunId(runId)) {
    throw new ErrandError("invalid_spec", `waitpoint ${body.token} is not one of run ${runId}`);
  }
  return context.errand.waitpoints.complete(body.token, body.answer, {
    answeredBy: body.answeredBy ?? ANSWERED_BY,
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
