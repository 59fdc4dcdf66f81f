/**
 * What firing needs and what it tells of each run: the types the writing of
 * runs (`enqueue-runs.ts`), the resolving of those whose job could not be
 * enqueued (`unenqueued-runs.ts`) and the callers of both share, in a leaf
 * so that neither imports the other back.
 */
import type { ErrandError } from "@errand/core";
import type { RunQueues } from "../queues/run-queues.js";
import type { EngineResources } from "../resources.js";
import type { MetadataLimits } from "./fire-spec.js";
import type { FireWarning } from "./fire-warnings.js";

/**
 * What firing needs: the resources (whose connection is auto-pipelined:
 * commands issued in one tick leave as one pipeline), the queues and the limits.
 */
export interface FireContext extends EngineResources {
  queues: RunQueues;
  /** The largest input, in bytes of UTF-8 JSON. */
  maxInputBytes: number;
  /** How much metadata a run may carry. Default `DEFAULT_METADATA_LIMITS`. */
  metadataLimits?: MetadataLimits;
  /** Whether runs with a `concurrencyKey` are queued fairly across keys. Default true. */
  fairQueueing?: boolean;
  /** The Redis the errors of a fire given up name (`redis-target.ts`), already redacted. */
  target?: string;
}

/**
 * What became of one run: fired (with preflight's warnings, if any) or,
 * `deduplicated`, found fired before under its idempotency key; or refused
 * with its error (with its runId once it had one).
 */
export type FireOutcome =
  | { ok: true; runId: string; deduplicated?: true; warnings?: FireWarning[] }
  | { ok: false; runId?: string; error: ErrandError };
