/**
 * The idempotency keys a `spawn_agents` call fires its children under. A
 * parent that crashes after firing its children but before the call's
 * result is in its log runs the call again when it resumes; each child is
 * fired under a key made of the parent, the call and the item's place, so
 * the second try makes no run: each item answers with the run the first
 * try fired (docs/architecture/tool-results.md#parents).
 */
import { createHash } from "node:crypto";

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
 * The key of each of the call's `count` items, in order: the parent, the
 * step, the callId and a digest of the arguments, so that a model asked
 * again for the same step that answers with another call (or reuses a
 * callId for other arguments) fires its own runs; then the item's index.
 */
export function spawnIdempotencyKeys(call: SpawnCall, count: number): string[] {
  const digest = createHash("sha256")
    .update(JSON.stringify(call.args) ?? "null")
    .digest("base64url")
    .slice(0, 22);
  const base = `spawn_agents:${call.parentRunId}:${call.step}:${call.callId}:${digest}`;
  return Array.from({ length: count }, (_, index) => `${base}:${index}`);
}
