/**
 * `fire`: preflight one spec, then write its `run-queued` and enqueue its job.
 */
import { enqueueRuns, type FireContext } from "./enqueue-runs.js";
import { preflightFire } from "./fire-preflight.js";
import type { FireResult } from "./fire-spec.js";
import { createPreflightLookups } from "./preflight-lookups.js";

/**
 * Fires one run and resolves with its runId once its job is enqueued; with
 * an idempotency key that names a run fired within its TTL, resolves with
 * that run's id and `deduplicated: true`, having written nothing.
 * Throws the preflight refusal (`invalid_spec`, `unknown_agent`,
 * `unsupported_schema`, `schema_not_supported`, `input_too_large`,
 * `not_found` for a missing parent) before writing anything;
 * `redis_out_of_memory` (retryable) when Redis, out of memory, refused to
 * write the run or its job: nothing is left of it. Any other failure to
 * enqueue the job after the log was written takes the run back too
 * (`internal`, retryable, without a runId); only when that cannot be done is
 * the error's `details.runId` set (see `unenqueued-runs.ts`).
 */
export async function fire(context: FireContext, spec: unknown): Promise<FireResult> {
  const lookups = createPreflightLookups(context.redis, context.keys, context.store);
  const prepared = await preflightFire(spec, lookups, context);
  const [outcome] = await enqueueRuns(context, [prepared]);
  if (outcome?.ok) {
    return outcome.deduplicated
      ? { runId: outcome.runId, deduplicated: true }
      : { runId: outcome.runId };
  }
  throw outcome?.error;
}
