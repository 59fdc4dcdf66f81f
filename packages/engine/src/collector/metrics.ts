/** What a collector exposes for metrics: per shard, its lag, pending entries and dead letters. */
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import { readGroups } from "./trim.js";

/** One shard stream as the collectors' group sees it. */
export interface ShardMetrics {
  shard: number;
  /** Entries not yet delivered to any collector; null when Redis cannot tell. */
  lag: number | null;
  /** Entries delivered to a collector and not yet acknowledged. */
  pending: number;
  /** Entries in the shard's dead-letter stream. */
  deadLettered: number;
}

/** The collectors' metrics over their shards. */
export interface CollectorMetrics {
  shards: ShardMetrics[];
  /** The sum of every shard's `lag` (shards whose lag is unknown count 0). */
  lag: number;
  /** The sum of every shard's `pending`. */
  pending: number;
  /** The sum of every shard's `deadLettered`. */
  deadLettered: number;
}

/** Reads the metrics of `group` on `shards`. */
export async function readCollectorMetrics(
  redis: RedisConnection,
  keys: EngineKeys,
  group: string,
  shards: readonly number[],
): Promise<CollectorMetrics> {
  const perShard = await Promise.all(
    shards.map(async (shard): Promise<ShardMetrics> => {
      const [groups, deadLettered] = await Promise.all([
        readGroups(redis, keys.shardEvents(shard)),
        redis.xlen(keys.deadLetters(shard)),
      ]);
      const info = groups.find((candidate) => candidate.name === group);
      return { shard, lag: info?.lag ?? null, pending: info?.pending ?? 0, deadLettered };
    }),
  );
  const sum = (pick: (shard: ShardMetrics) => number) =>
    perShard.reduce((total, shard) => total + pick(shard), 0);
  return {
    shards: perShard,
    lag: sum((shard) => shard.lag ?? 0),
    pending: sum((shard) => shard.pending),
    deadLettered: sum((shard) => shard.deadLettered),
  };
}
