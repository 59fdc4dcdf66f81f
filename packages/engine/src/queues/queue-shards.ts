/**
 * Queue shards: the BullMQ queues one queue of runs is spread over, so that
 * on a Redis Cluster its jobs, locks and stalled checks spread over the
 * masters (docs/architecture/redis-layout.md#queue-shards). A queue of `G` shards
 * is named `<label>~G` (`queueOfAgents`), so whoever holds its name — a
 * producer reading the registry, cancel, the reaper, adoption, dashboards —
 * knows its shards without asking. Shard `k` is the BullMQ queue
 * `<label>~G.k` under the prefix `<p>:{queue-kofG-i}`: a hash tag whose slot
 * lies in the `k`-th of `G` equal slot ranges, so that the shards sit on
 * different masters of a cluster whose masters own equal ranges. A run's job
 * is on shard `shardOfRunId(runId) mod G`: its shard group. One shard
 * (`G = 1`, the default) is the queue as it always was: `<label>` under
 * `<p>:{queue}`.
 */
import { ErrandError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import type { EngineKeys } from "../engine-keys.js";
import { HASH_SLOTS, hashSlot } from "../redis/hash-slot.js";

/** How many shards a worker's queue has when not told: one, as a plain Redis needs. */
export const DEFAULT_QUEUE_SHARDS = 1;

/** The most shards a queue may have: each shard a worker takes from holds a blocking connection. */
export const MAX_QUEUE_SHARDS = 64;

/** Between a queue's label and its shard count in its name: no agent name holds it. */
const SHARD_COUNT_MARK = "~";

/** One BullMQ queue of a queue of runs. */
export interface QueueShard {
  /** The queue of runs it is a shard of (as the registry names it). */
  readonly queue: string;
  /** Its index, 0 … `shards` − 1. */
  readonly shard: number;
  /** How many shards the queue has. */
  readonly shards: number;
  /** Its BullMQ queue name. */
  readonly name: string;
  /** Its BullMQ prefix, hash-tagged. */
  readonly prefix: string;
}

/** Throws an `ErrandError` `invalid_spec` unless `shards` is a whole number from 1 to {@link MAX_QUEUE_SHARDS}. */
export function requireQueueShards(shards: number): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_QUEUE_SHARDS) {
    throw new ErrandError(
      "invalid_spec",
      `queueShards must be a whole number from 1 to ${MAX_QUEUE_SHARDS}, not ${shards}`,
      { details: { queueShards: shards } },
    );
  }
  return shards;
}

/** `label` with its shard count: the name of a queue of `shards` shards. */
export function withShardCount(label: string, shards: number): string {
  return requireQueueShards(shards) === 1 ? label : `${label}${SHARD_COUNT_MARK}${shards}`;
}

/** How many shards the queue named `queue` has (1 for a name without a count). */
export function shardCountOf(queue: string): number {
  const mark = queue.lastIndexOf(SHARD_COUNT_MARK);
  if (mark === -1) return 1;
  const shards = Number(queue.slice(mark + 1));
  return Number.isInteger(shards) && shards >= 1 && shards <= MAX_QUEUE_SHARDS ? shards : 1;
}

const tags = new Map<string, string>();

/** The hash tag of shard `shard` of `shards`: the first `queue-<k>of<G>-<i>` whose slot is in the shard's range. */
function shardTag(shard: number, shards: number): string {
  const known = tags.get(`${shard}/${shards}`);
  if (known !== undefined) return known;
  const low = Math.floor((shard * HASH_SLOTS) / shards);
  const high = Math.floor(((shard + 1) * HASH_SLOTS) / shards);
  for (let attempt = 0; ; attempt++) {
    const tag = `queue-${shard}of${shards}-${attempt}`;
    const slot = hashSlot(tag);
    if (slot >= low && slot < high) {
      tags.set(`${shard}/${shards}`, tag);
      return tag;
    }
  }
}

/** Shard `shard` of the queue `queue`. */
function queueShard(keys: EngineKeys, queue: string, shard: number): QueueShard {
  const shards = shardCountOf(queue);
  if (shards === 1) return { queue, shard: 0, shards, name: queue, prefix: keys.bullmqPrefix };
  return {
    queue,
    shard,
    shards,
    name: `${queue}.${shard}`,
    prefix: `${keys.prefix}:{${shardTag(shard, shards)}}`,
  };
}

/** Every shard of the queue `queue`, in order. */
export function shardsOfQueue(keys: EngineKeys, queue: string): QueueShard[] {
  return Array.from({ length: shardCountOf(queue) }, (_, shard) => queueShard(keys, queue, shard));
}

/** The shard of the queue `queue` that run `runId`'s job goes to: its run's shard modulo the count. */
export function shardOfRun(keys: EngineKeys, queue: string, runId: string): QueueShard {
  const shards = shardCountOf(queue);
  return queueShard(keys, queue, shards === 1 ? 0 : shardOfRunId(runId) % shards);
}
