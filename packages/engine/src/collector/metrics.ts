/** The collectors' metrics: per shard, its lag, pending entries and dead letters. */
import { DEFAULT_SHARDS } from "@errand/store/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { DEFAULT_COLLECTOR_GROUP } from "./consumer-group.js";
import { readGroups } from "./trim.js";

/** One shard stream as the collectors' group sees it. */
interface ShardMetrics {
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

/** Which collectors' metrics to read. */
export interface CollectorMetricsOptions {
  /** The collectors' consumer group. Default {@link DEFAULT_COLLECTOR_GROUP}. */
  group?: string;
  /** How many shards: 0 … `shards` − 1. Default 16, the store's. */
  shards?: number;
}

/**
 * Reads the metrics of the collectors on `redis` under `keys`' prefix: what
 * a collector's `metrics()` answers, without being a collector. Shards whose
 * stream does not exist yet count zero.
 */
export async function readCollectorMetrics(
  redis: RedisConnection,
  keys: EngineKeys,
  { group = DEFAULT_COLLECTOR_GROUP, shards = DEFAULT_SHARDS }: CollectorMetricsOptions = {},
): Promise<CollectorMetrics> {
  const shardList = Array.from({ length: shards }, (_, shard) => shard);
  const perShard = await Promise.all(
    shardList.map(async (shard): Promise<ShardMetrics> => {
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
