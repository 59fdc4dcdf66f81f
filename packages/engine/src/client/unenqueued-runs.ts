/**
 * Runs whose `run-queued` was written but whose job could not be enqueued
 * (Redis out of memory, BullMQ refusing the job). No run may wait for a job
 * that never comes (docs/architecture/firing.md#firing), and a producer told that its
 * fire failed must find nothing fired, so each such run is, in turn:
 * - fired after all when its job is in the queue (the failure came after it);
 * - withdrawn when nothing happened to it since this call wrote it: its
 *   log, head and place among its parent's children are deleted, and its
 *   idempotency key released, which Redis does even when it is out of
 *   memory (deleting frees memory);
 * - settled `failed` (`internal`) otherwise (a cancel reached it meanwhile),
 *   as a last resort that a run past all of these is unlikely to need.
 * The reaper enqueues any run still left queued without a job (see
 * `reaper/jobless-runs.ts`).
 */
import { ErrandError } from "@errand/core";
import type { CarriedRunQueued } from "../queues/job-data.js";
import { hasRunJob } from "../queues/run-jobs.js";
import { isTransientRedisError, transientRedisError } from "../redis/transient-redis.js";
import type { FireContext, FireOutcome } from "./fire-context.js";
import type { PreparedRun } from "./fire-preflight.js";

/** A run whose `run-queued` is in its log. */
export interface LoggedRun {
  runId: string;
  prepared: PreparedRun;
  /** `at` of the `run-queued` this call wrote (or, for a run an earlier fire wrote, that fire's). */
  writtenAt: string;
  /** Set for a run an earlier fire under the same idempotency key wrote but may not have enqueued. */
  deduplicated?: true;
  /** The `run-queued` its job carries, when this call wrote it (`carriedRunQueued`). */
  queued?: CarriedRunQueued;
}

/**
 * `error` as an {@link ErrandError}: a transient Redis error as
 * `transientRedisError` names it; anything else is an `internal` error worth
 * a retry.
 */
export function asFireError(error: unknown, refused = "the run was not fired"): ErrandError {
  if (error instanceof ErrandError) return error;
  if (isTransientRedisError(error)) return transientRedisError(refused, error);
  const message = error instanceof Error ? error.message : String(error);
  return new ErrandError("internal", message, { retryable: true, cause: error });
}

/** What a producer is told of a run taken back after its job could not be enqueued. */
const WITHDRAWN =
  "the run was withdrawn (its job could not be enqueued; nothing of it is left behind) and firing it again is safe";

/**
 * The error of a run withdrawn after `cause`: a transient Redis error (out of
 * memory, a cluster moving, …) says so in its own words; any other cause is
 * told, then that the run was withdrawn.
 */
function withdrawnError(cause: unknown): ErrandError {
  if (isTransientRedisError(cause)) return transientRedisError(WITHDRAWN, cause);
  const error = asFireError(cause);
  return new ErrandError(error.code, `${error.message}; ${WITHDRAWN}`, {
    retryable: true,
    cause: error,
  });
}

/**
 * Takes back a run this call wrote: its log and head, its idempotency key
 * and its place among its parent's children (and its pending children).
 */
async function withdraw(
  context: FireContext,
  { runId, prepared, writtenAt }: LoggedRun,
): Promise<boolean> {
  const withdrawal = await context.store.withdrawRun({
    runId,
    agent: prepared.registration.name,
    createdAt: writtenAt,
    ...(prepared.idempotency === undefined ? {} : { idempotencyKey: prepared.idempotency.key }),
  });
  if (withdrawal === "moved-on") return false;
  if (prepared.parentRunId !== undefined) {
    const { parentRunId } = prepared;
    await Promise.all([
      context.redis.zrem(context.keys.children(parentRunId), runId),
      context.redis.srem(context.keys.childrenPending(parentRunId), runId),
    ]);
  }
  return true;
}

/** Settles `run` failed (`internal`), unless it settled meanwhile; best effort. */
async function settleFailed(context: FireContext, runId: string, cause: ErrandError) {
  const data = {
    code: "internal",
    message: `the run could not be enqueued: ${cause.message}`,
    retryable: true,
  };
  const at = context.now().toISOString();
  await context.store.appendEvents(runId, "any", [{ type: "failed", at, data }]).catch(() => []);
}

/** What becomes of one run of queue `queue` whose enqueue failed with `cause`. */
async function resolveRun(
  context: FireContext,
  queue: string,
  run: LoggedRun,
  cause: unknown,
): Promise<FireOutcome> {
  const { runId } = run;
  if (await hasRunJob(context.redis, context.queues.ofRun(queue, runId), runId)) {
    return { ok: true, runId };
  }
  if (await withdraw(context, run)) {
    return { ok: false, error: withdrawnError(cause) };
  }
  const error = asFireError(cause);
  const details = { runId };
  await settleFailed(context, runId, error);
  const message = `run ${runId} could not be enqueued and was settled failed: ${error.message}`;
  return {
    ok: false,
    runId,
    error: new ErrandError("internal", message, { retryable: true, cause: error, details }),
  };
}

/**
 * One outcome per run of `runs` (all of queue `queue`), in order, after
 * their enqueue failed with `cause`: fired, withdrawn or settled as
 * the module says. A run whose resolution fails too (Redis unreachable) is
 * reported with its runId: the reaper enqueues it later.
 */
export async function resolveUnenqueued(
  context: FireContext,
  queue: string,
  runs: readonly LoggedRun[],
  cause: unknown,
): Promise<FireOutcome[]> {
  return Promise.all(
    runs.map((run) =>
      resolveRun(context, queue, run, cause).catch(
        (error: unknown): FireOutcome => ({
          ok: false,
          runId: run.runId,
          error: new ErrandError(
            "internal",
            `run ${run.runId} could not be enqueued (${asFireError(cause).message}), nor taken back (${asFireError(error).message}); it is enqueued later`,
            { retryable: true, cause, details: { runId: run.runId } },
          ),
        }),
      ),
    ),
  );
}
