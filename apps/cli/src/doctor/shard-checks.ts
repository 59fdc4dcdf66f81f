/**
 * Queue shards without a worker: a worker may take a subset of its queue's
 * shards (`--take-queue-shards`), and a shard that no live worker of its
 * queue takes holds its runs until one does. They are not lost, but nothing
 * happens to them, so doctor names each such shard.
 */
import type { EngineKeys, RedisConnection } from "@errand/engine";
import { readWorkerHeartbeats, untakenQueueShards } from "@errand/engine/ops";
import { type DoctorCheck, passed, problem } from "./check.js";

const NAME = "queue shards taken";

/** Every shard of every queue with a live worker is taken by one of them. */
export async function checkQueueShardsTaken(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<DoctorCheck> {
  const heartbeats = await readWorkerHeartbeats(redis, keys);
  const untaken = untakenQueueShards(heartbeats);
  if (untaken.length > 0) {
    const first = untaken[0]!;
    return problem(
      NAME,
      untaken
        .map(({ queue, shard }) => `shard ${shard} of queue ${queue} has no worker: its runs wait`)
        .join("; "),
      `start a worker of that queue that takes it (errand worker --agents <module> --queue-shards ${first.shards} --take-queue-shards ${untaken
        .filter(({ queue }) => queue === first.queue)
        .map(({ shard }) => shard)
        .join(",")}), or one without --take-queue-shards: it takes every shard`,
    );
  }
  const queues = new Set(heartbeats.flatMap((heartbeat) => heartbeat.queues));
  return passed(NAME, `every shard of the ${queues.size} queues with a live worker is taken`);
}
