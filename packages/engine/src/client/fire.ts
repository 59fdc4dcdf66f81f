/**
 * `fire`: preflight one spec, then write its `run-queued` and enqueue its job.
 */
import { enqueueRuns, type FireContext } from "./enqueue-runs.js";
import { preflightFire } from "./fire-preflight.js";
import type { FireResult } from "./fire-spec.js";
import { createPreflightLookups } from "./preflight-lookups.js";

/**
 * Fires one run and resolves with its runId once its job is enqueued.
 * Throws the preflight refusal (`invalid_spec`, `unknown_agent`,
 * `unsupported_schema`, `schema_not_supported`, `input_too_large`,
 * `not_found` for a missing parent) before writing anything, or `internal`
 * (retryable, with `details.runId`) when the job could not be enqueued after
 * the log was written: that run is settled `failed`.
 */
export async function fire(context: FireContext, spec: unknown): Promise<FireResult> {
  const lookups = createPreflightLookups(context.redis, context.keys, context.store);
  const prepared = await preflightFire(spec, lookups, context);
  const [outcome] = await enqueueRuns(context, [{ prepared }]);
  if (outcome?.ok) return { runId: outcome.runId };
  throw outcome?.error;
}
