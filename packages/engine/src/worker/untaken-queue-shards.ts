/**
 * Queue shards no live worker takes. A worker may take a subset of its
 * queue's shards (`takeQueueShards`); a run's job goes to its run's shard
 * whatever the workers take, so a shard none of them takes holds its runs
 * until one does (docs/architecture/redis-layout.md#queue-shards). `doctor` and the
 * dashboard's overview name such shards.
 */
import { shardCountOf } from "../queues/queue-shards.js";
import type { WorkerHeartbeat } from "./heartbeat.js";

/** One shard of a queue that has live workers, none of which takes it. */
export interface UntakenQueueShard {
  queue: string;
  shard: number;
  /** How many shards the queue has. */
  shards: number;
}

/**
 * The shards of each queue in `heartbeats` (the live workers') that none of
 * them takes, by queue then shard. A heartbeat without `queueShards` takes
 * every shard. Queues without a live worker are not listed: their runs wait
 * for a worker of any kind (see `doctor`'s "runs waiting for a worker").
 */
export function untakenQueueShards(
  heartbeats: readonly Pick<WorkerHeartbeat, "queues" | "queueShards">[],
): UntakenQueueShard[] {
  const taken = new Map<string, Set<number>>();
  for (const heartbeat of heartbeats) {
    for (const queue of heartbeat.queues) {
      const shards = shardCountOf(queue);
      const set = taken.get(queue) ?? new Set<number>();
      for (const shard of heartbeat.queueShards ?? Array.from({ length: shards }, (_, i) => i)) {
        set.add(shard);
      }
      taken.set(queue, set);
    }
  }
  return [...taken.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([queue, set]) => {
      const shards = shardCountOf(queue);
      return Array.from({ length: shards }, (_, shard) => shard)
        .filter((shard) => !set.has(shard))
        .map((shard) => ({ queue, shard, shards }));
    });
}
