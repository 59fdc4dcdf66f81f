/**
 * Claiming the runIds of a `spawn_agents` call before firing them. A parent
 * that crashes after firing its children but before the call's result is in
 * its log runs the call again when it resumes; the claim makes that second
 * try fire the same runs, so no child is fired twice. The first try to
 * claim a call wins (HSETNX); any later try of the same call, with the same
 * arguments, reads the runIds the winner chose.
 */
import { createHash } from "node:crypto";
import { ErrandError, isRunId } from "@errand/core";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";

/** One `spawn_agents` call of a parent: where it was made and with what. */
export interface SpawnCall {
  parentRunId: string;
  /** The step whose model response made the call. */
  step: number;
  callId: string;
  /** The call's arguments, as the tool received them. */
  args: unknown;
}

/**
 * The field of a call's claim: its step, its callId and a digest of its
 * arguments, so that a model asked again for the same step that answers with
 * another call (or reuses a callId for other arguments) fires its own runs.
 */
function spawnClaimField(call: SpawnCall): string {
  const digest = createHash("sha256")
    .update(JSON.stringify(call.args) ?? "null")
    .digest("base64url")
    .slice(0, 22);
  return `${call.step}:${call.callId}:${digest}`;
}

function parseClaim(call: SpawnCall, stored: string | null, count: number): string[] {
  let runIds: unknown;
  try {
    runIds = stored === null ? undefined : JSON.parse(stored);
  } catch {
    runIds = undefined;
  }
  if (Array.isArray(runIds) && runIds.length === count && runIds.every(isRunId)) return runIds;
  throw new ErrandError(
    "internal",
    `run ${call.parentRunId}: the runIds claimed for call ${call.callId} (step ${call.step}) are unreadable; the call was not fired`,
    { retryable: true, details: { parentRunId: call.parentRunId, callId: call.callId } },
  );
}

/**
 * The `count` runIds of `call`, in item order: the ones `newRunId` proposes
 * when this is the call's first try, else the ones its first try claimed.
 */
export async function claimChildRunIds(
  redis: RedisConnection,
  keys: EngineKeys,
  call: SpawnCall,
  count: number,
  newRunId: () => string,
): Promise<string[]> {
  const key = keys.spawnClaims(call.parentRunId);
  const field = spawnClaimField(call);
  const proposed = Array.from({ length: count }, newRunId);
  if ((await redis.hsetnx(key, field, JSON.stringify(proposed))) === 1) return proposed;
  return parseClaim(call, await redis.hget(key, field), count);
}
