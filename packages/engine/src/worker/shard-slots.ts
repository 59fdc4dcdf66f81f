/**
 * Which shards of its queue a worker takes jobs from, and how its slots are
 * split over them (docs/architecture/worker.md#queue-shards). Each shard taken
 * is one BullMQ worker with a blocking connection of its own, and BullMQ
 * bounds each worker's runs by its own `concurrency`: the worker's slots are
 * split as evenly as they go, at least one per shard, so that it never runs
 * more at once than its `concurrency`.
 */
import { ErrandError } from "@errand/core";
import type { EngineKeys } from "../engine-keys.js";
import { type QueueShard, shardsOfQueue } from "../queues/queue-shards.js";

/** A shard a worker takes from, and how many of its runs at once. */
export interface ShardSlots {
  shard: QueueShard;
  slots: number;
}

/**
 * The shards of `queue` to take (`takeQueueShards`, default all) with their
 * slots. Throws an `ErrandError` `invalid_spec` for a shard the queue does
 * not have, none at all, or a `concurrency` below the number of shards taken.
 */
export function takeShards(
  keys: EngineKeys,
  queue: string,
  options: { concurrency?: number; takeQueueShards?: readonly number[] },
): ShardSlots[] {
  const all = shardsOfQueue(keys, queue);
  const wanted = options.takeQueueShards ?? all.map(({ shard }) => shard);
  const taken = [...new Set(wanted)]
    .sort((a, b) => a - b)
    .map((index) => {
      const shard = all[index];
      if (shard === undefined) {
        throw new ErrandError(
          "invalid_spec",
          `takeQueueShards names shard ${index}, but the queue has shards 0 … ${all.length - 1}`,
          { details: { takeQueueShards: wanted, queueShards: all.length } },
        );
      }
      return shard;
    });
  if (taken.length === 0) {
    throw new ErrandError(
      "invalid_spec",
      "takeQueueShards names no shard: the worker would take nothing",
    );
  }
  const concurrency = options.concurrency ?? Math.max(1, taken.length);
  if (!Number.isInteger(concurrency) || concurrency < taken.length) {
    throw new ErrandError(
      "invalid_spec",
      `concurrency ${concurrency} cannot cover ${taken.length} queue shards: a worker runs at least one run per shard it takes; raise concurrency or take fewer shards (takeQueueShards)`,
      { details: { concurrency, shardsTaken: taken.length } },
    );
  }
  return taken.map((shard, position) => ({
    shard,
    slots: Math.floor(concurrency / taken.length) + (position < concurrency % taken.length ? 1 : 0),
  }));
}
