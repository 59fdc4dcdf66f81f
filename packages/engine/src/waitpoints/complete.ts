/**
 * `waitpoints.complete(token, answer)` (docs/architecture/tool-results.md#waitpoints): answers a
 * waitpoint. The answer is checked against the waitpoint's schema, then its
 * `waitpoint-completed` is appended, fenced at the seq just read (so of two
 * answers, or an answer and a timeout, exactly one lands), and the run's
 * parked job is promoted: a worker resumes the run, and the waiting call
 * answers with it.
 */
import {
  ErrandError,
  foldRun,
  isErrandError,
  isSettled,
  type RunState,
  type WaitpointState,
} from "@errand/core";
import {
  isWaitpointOverdue,
  parseWaitpointToken,
  runNotFound,
  waitpointOf,
} from "@errand/core/ops";
import { checkAnswer } from "@errand/runtime/ops";
import { isSeqConflict } from "@errand/store";
import { promoteParkedJob } from "../queues/run-jobs.js";
import type { RunQueues } from "../queues/run-queues.js";
import type { EngineResources } from "../resources.js";
import { removeWaiting } from "./waiting-index.js";

/** Options of `complete`. */
export interface CompleteOptions {
  /** Who answers, kept in `waitpoint-completed` and shown on the run's timeline. */
  answeredBy?: string;
}

/** A waitpoint answered. */
export interface CompletedWaitpoint {
  token: string;
  runId: string;
  /** When the answer was written. */
  answeredAt: string;
}

/** What answering needs: the resources and the queues the run's job is promoted in. */
export interface CompleteContext extends EngineResources {
  queues: RunQueues;
}

/** How many times an answer is tried again when other writers move the run's log on. */
const MAX_COMPLETE_TRIES = 10;

/** Why `waitpoint` of `state` cannot take an answer now, if it cannot. */
function closedError(
  state: RunState,
  waitpoint: WaitpointState,
  now: Date,
): ErrandError | undefined {
  const { token } = waitpoint;
  if (waitpoint.status === "answered") {
    const by = waitpoint.answeredBy === undefined ? "" : ` by ${waitpoint.answeredBy}`;
    return new ErrandError(
      "waitpoint_answered",
      `waitpoint ${token} was already answered${by} at ${waitpoint.closedAt}: an answer is taken once`,
      { details: { token, answeredAt: waitpoint.closedAt, answeredBy: waitpoint.answeredBy } },
    );
  }
  if (waitpoint.status === "timed-out" || isWaitpointOverdue(waitpoint, now)) {
    return new ErrandError(
      "waitpoint_timeout",
      `waitpoint ${token} timed out at ${waitpoint.timeoutAt} without an answer: it takes none now`,
      { details: { token, timeoutAt: waitpoint.timeoutAt } },
    );
  }
  if (isSettled(state)) {
    return new ErrandError(
      "run_settled",
      `run ${state.runId} already settled ${state.status}: waitpoint ${token} can no longer be answered`,
      { details: { token, runId: state.runId, status: state.status } },
    );
  }
  return undefined;
}

function invalidAnswer(token: string, issues: readonly string[]): ErrandError {
  return new ErrandError(
    "invalid_answer",
    `the answer does not match the answer schema of waitpoint ${token}: ${issues.join("; ")}`,
    { details: { token, issues } },
  );
}

/**
 * Answers waitpoint `token` with `answer`. Throws an `ErrandError`:
 * `invalid_spec` for a string that is not a token, `not_found` for an unknown
 * run or waitpoint, `invalid_answer` (with `details.issues`) for an answer
 * that does not match the waitpoint's schema — the run keeps waiting —,
 * `waitpoint_answered` when it was answered already, `waitpoint_timeout` when
 * it timed out, `run_settled` when its run settled (cancelled, say).
 */
export async function completeWaitpoint(
  context: CompleteContext,
  token: string,
  answer: unknown,
  options: CompleteOptions = {},
): Promise<CompletedWaitpoint> {
  const { runId } = parseWaitpointToken(token);
  for (let tries = 0; tries < MAX_COMPLETE_TRIES; tries++) {
    const state = foldRun(await context.store.readLog(runId), runId);
    if (state.queued === undefined) throw runNotFound(runId);
    const waitpoint = waitpointOf(state, token);
    if (waitpoint === undefined) {
      throw new ErrandError("not_found", `run ${runId} has no waitpoint ${token}`, {
        details: { token, runId },
      });
    }
    const now = context.now();
    const closed = closedError(state, waitpoint, now);
    if (closed) throw closed;
    const check = checkAnswer(waitpoint.answerSchema, answer);
    if (!check.ok) throw invalidAnswer(token, check.issues);
    const answeredBy = options.answeredBy === undefined ? {} : { answeredBy: options.answeredBy };
    const answeredAt = now.toISOString();
    try {
      await context.store.appendEvents(runId, state.seq, [
        { type: "waitpoint-completed", at: answeredAt, data: { token, answer, ...answeredBy } },
      ]);
    } catch (error) {
      if (isSeqConflict(error)) continue;
      if (isErrandError(error, "run_settled")) continue;
      throw error;
    }
    await removeWaiting(context, token);
    const lookup = { redis: context.redis, keys: context.keys, ofRun: context.queues.ofRun };
    await promoteParkedJob(lookup, runId, state.queued.agent);
    context.logger.info({ runId, waitpoint: token }, "waitpoint answered");
    return { token, runId, answeredAt };
  }
  throw new ErrandError(
    "internal",
    `run ${runId}: could not answer waitpoint ${token} after ${MAX_COMPLETE_TRIES} tries; other writers kept appending`,
    { retryable: true },
  );
}
