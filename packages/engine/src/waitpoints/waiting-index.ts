/**
 * The index of waitpoints waiting for an answer, for `errand runs waiting`
 * (docs/architecture/redis-layout.md): per shard, a ZSET of tokens scored by when each
 * was created, in its run's shard (the token names the run, so the run's
 * hash tag). The worker adds a token each time it parks a run on it, so an
 * entry lost to a crash comes back at the next re-check; `complete` removes
 * it; readers drop entries whose waitpoint closed (timed out, run settled or expired).
 */
import { parseWaitpointToken, shardOfRunId } from "@errand/core/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";

/** Where the index lives. */
export interface WaitingIndex {
  redis: RedisConnection;
  keys: EngineKeys;
}

function indexOf({ keys }: WaitingIndex, token: string): string {
  return keys.waitingWaitpoints(shardOfRunId(parseWaitpointToken(token).runId));
}

/** Lists `token` (created at `createdAtMs`) as waiting for an answer. */
export async function addWaiting(
  index: WaitingIndex,
  token: string,
  createdAtMs: number,
): Promise<void> {
  await index.redis.zadd(indexOf(index, token), createdAtMs, token);
}

/** Takes `token` off the list of waitpoints waiting for an answer. */
export async function removeWaiting(index: WaitingIndex, token: string): Promise<void> {
  await index.redis.zrem(indexOf(index, token), token);
}
