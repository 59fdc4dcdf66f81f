/**
 * What the dashboard may do to runs: cancel one (optionally with its
 * descendants), fire one again with the same input ("replay"), and answer
 * the waitpoint it waits on.
 */
import { randomUUID } from "node:crypto";
import { ErrandError, type ErrorCode } from "@errand/core";
import { parseWaitpointToken } from "@errand/core/ops";
import type { CancelResult, CompletedWaitpoint, FireResult } from "@errand/engine";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import { requireRunId } from "../reads/run-view.js";

/** Who the dashboard's cancels are by, in `cancel-requested`. */
export const CANCELLED_BY = "dashboard";

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
 * Fires the run again as `errand.rerun` does (same agent, input, output
 * schema, metadata plus `rerunOf`, time allowance; no parent), on the newest
 * live version, a new run for each press (a request key of its own). Throws
 * the refusal of the one run as an `ErrandError`.
 */
export async function replayRun(context: DashboardContext, runId: string): Promise<FireResult> {
  const { results } = await context.errand.rerun({
    runs: [requireRunId(runId)],
    version: "newest",
    idempotencyKey: randomUUID(),
  });
  const [replayed] = results;
  if (replayed?.ok && replayed.runId !== undefined) {
    return {
      runId: replayed.runId,
      ...(replayed.warnings === undefined ? {} : { warnings: replayed.warnings }),
      ...(replayed.viewUrl === undefined ? {} : { viewUrl: replayed.viewUrl }),
    };
  }
  const error = replayed?.error ?? { code: "internal", message: "the run was not fired again" };
  throw new ErrandError(error.code as ErrorCode, error.message, {
    retryable: replayed?.retryable ?? false,
  });
}
