/**
 * `fire`: preflight one spec, then write its `run-queued` and enqueue its job,
 * waiting out a Redis Cluster on the move.
 */

import { CLIENT_PATIENCE_MS, CLIENT_WAITS_OUT } from "../redis/client-patience.js";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import { enqueueRuns } from "./enqueue-runs.js";
import type { FireContext, FireOutcome } from "./fire-context.js";
import { preflightFire } from "./fire-preflight.js";
import type { FireResult } from "./fire-spec.js";
import { createPreflightLookups } from "./preflight-lookups.js";

/**
 * The spec's `deadlineMs` when it is a positive number; anything else is left
 * to preflight to refuse, and waits the full patience meanwhile.
 */
function deadlineMsOf(spec: unknown): number | undefined {
  if (typeof spec !== "object" || spec === null || !("deadlineMs" in spec)) return undefined;
  const { deadlineMs } = spec;
  return typeof deadlineMs === "number" && deadlineMs > 0 ? deadlineMs : undefined;
}

/**
 * One try: the outcome of preflight, write and enqueue; its error, thrown,
 * when the run was not fired (no runId), so that a transient one is tried again.
 */
async function fireOnce(context: FireContext, spec: unknown): Promise<FireOutcome> {
  const lookups = createPreflightLookups(context.redis, context.keys, context.store);
  const prepared = await preflightFire(spec, lookups, context);
  const [outcome] = await enqueueRuns(context, [prepared]);
  if (outcome!.ok || outcome!.runId !== undefined) return outcome!;
  throw outcome!.error;
}

/**
 * Fires one run and resolves with its runId once its job is enqueued (with
 * `warnings` when no worker of its agent is live: see `fire-warnings.ts`);
 * with an idempotency key that names a run fired within its TTL, resolves
 * with that run's id and `deduplicated: true`, having written nothing.
 * Throws the preflight refusal (`invalid_spec`, `unknown_agent`,
 * `unsupported_schema`, `schema_not_supported`, `settings_not_supported`, `input_too_large`,
 * `invalid_input` with its issues, `not_found` for a missing parent) before writing anything;
 * `redis_out_of_memory` (retryable) when Redis, out of memory, refused to
 * write the run or its job: nothing is left of it. A Redis Cluster moving (a
 * master restarting or failing over), a server loading or unable to persist
 * (`MISCONF`) or a lost connection is waited out, with backoff, for {@link CLIENT_PATIENCE_MS} (or the run's
 * deadline), and only then thrown, as `redis_unavailable` (retryable). Any
 * other failure to enqueue the job after the log was written takes the run
 * back too (`internal`, retryable, without a runId); only when that cannot be
 * done is the error's `details.runId` set (see `unenqueued-runs.ts`), and the
 * call is not tried again: that run is enqueued later.
 */
export async function fire(context: FireContext, spec: unknown): Promise<FireResult> {
  const patienceMs = Math.min(CLIENT_PATIENCE_MS, deadlineMsOf(spec) ?? CLIENT_PATIENCE_MS);
  const outcome = await retryWhileRedisIsTransient(() => fireOnce(context, spec), {
    logger: context.logger,
    write: "fire of a run",
    patienceMs,
    troubles: CLIENT_WAITS_OUT,
    target: context.target,
  });
  if (outcome.ok) {
    if (outcome.deduplicated) return { runId: outcome.runId, deduplicated: true };
    return outcome.warnings
      ? { runId: outcome.runId, warnings: outcome.warnings }
      : { runId: outcome.runId };
  }
  throw outcome.error;
}
