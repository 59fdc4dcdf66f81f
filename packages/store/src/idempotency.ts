/**
 * Idempotency keys (docs/architecture/redis-layout.md#idempotency-keys-which-slot): a producer that fires with a
 * key gets the run fired under it before, as long as the key is kept. The
 * key is checked and set by the same append that writes the run's
 * `run-queued`, so two fires with one key can never both make a run; for
 * that one script to reach both, the key and the run share a shard: the
 * key's digest picks the shard, and the run fired under it is placed there.
 */
import { createHash } from "node:crypto";
import { ErrandError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import type { StoreKeys } from "./keys.js";

/** A key to fire a run under, and how long it is kept (from the firing that made the run). */
export interface IdempotencyKey {
  /** The producer's key, any non-empty string. */
  key: string;
  /** How long the key names its run, in ms: a whole number ≥ 1. */
  ttlMs: number;
}

/** The digest a key is stored under: 43 URL-safe characters whatever the key holds. */
function digestOf(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** The shard of 0 … `shards` − 1 that the runs fired under `key` are placed on. */
export function idempotencyShard(key: string, shards: number): number {
  return digestOf(key).readUInt32BE(0) % shards;
}

/** The Redis key of `key` on `shard`: its runs' shard (see {@link idempotencyShard}). */
export function idempotencyRedisKey(keys: StoreKeys, key: string, shard: number): string {
  return keys.idempotency(shard, digestOf(key).toString("base64url"));
}

/**
 * The Redis key of `key`, for the run `runId` to be fired under it. Throws
 * an {@link ErrandError} `internal` when the run is not on the key's shard
 * among `shards`: the append could not check the key atomically.
 */
export function idempotencyRedisKeyOfRun(
  keys: StoreKeys,
  key: string,
  runId: string,
  shards: number,
): string {
  const shard = shardOfRunId(runId);
  if (shard !== idempotencyShard(key, shards)) {
    throw new ErrandError(
      "internal",
      `run ${runId} is on shard ${shard}, not on its idempotency key's; give it an id from newRunId(key)`,
      { details: { runId, shard } },
    );
  }
  return idempotencyRedisKey(keys, key, shard);
}
