/**
 * `errand_queue_jobs{queue,state}`: how many jobs each queue in the registry
 * holds over all its shards, by state: `waiting` (waiting, prioritized or paused), `active`,
 * `parked` (a parked run's job, delayed until its next re-check) and
 * `delayed` (the other delayed jobs: retries after a backoff). A delayed job
 * is parked when its `errandParkedUntil` field is its delayed time
 * (`timestamp + delay`, see worker/park.ts); the first
 * {@link PARKED_SAMPLE} delayed jobs of a queue are looked at, so a queue
 * holding more counts the rest as delayed.
 */
import type { Queue } from "bullmq";
import type { EngineKeys } from "../engine-keys.js";
import { readEachShard, readJobCounts } from "../queues/queue-backlog.js";
import { readQueueRegistrations } from "../queues/registry.js";
import type { RedisConnection } from "../redis/connection.js";
import { PARKED_UNTIL_FIELD } from "../worker/park.js";
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** The most delayed jobs of one queue looked at to tell parked ones apart. */
const PARKED_SAMPLE = 1_000;

/** One queue's jobs by state. */
interface QueueDepth {
  waiting: number;
  active: number;
  parked: number;
  delayed: number;
}

/** How many of `queue`'s first {@link PARKED_SAMPLE} delayed jobs are parked. */
async function countParked(redis: RedisConnection, queue: Queue): Promise<number> {
  const jobIds = await redis.zrange(queue.keys.delayed ?? "", 0, PARKED_SAMPLE - 1);
  const fields = await Promise.all(
    jobIds.map((jobId) =>
      redis.hmget(queue.toKey(jobId), "timestamp", "delay", PARKED_UNTIL_FIELD),
    ),
  );
  return fields.filter(
    ([timestamp, delay, parkedUntil]) =>
      parkedUntil != null && Number(timestamp) + Number(delay) === Number(parkedUntil),
  ).length;
}

/** Reads queue `name`'s depth on `redis`: the sum over its shards. */
async function readQueueDepth(
  redis: RedisConnection,
  keys: EngineKeys,
  name: string,
): Promise<QueueDepth> {
  const shards = await readEachShard(redis, keys, name, async (queue) => {
    const [counts, parked] = await Promise.all([readJobCounts(queue), countParked(redis, queue)]);
    return {
      waiting: counts.waiting,
      active: counts.active,
      parked,
      delayed: Math.max(0, counts.delayed - parked),
    };
  });
  const sum = (state: keyof QueueDepth) => shards.reduce((total, depth) => total + depth[state], 0);
  return {
    waiting: sum("waiting"),
    active: sum("active"),
    parked: sum("parked"),
    delayed: sum("delayed"),
  };
}

/**
 * Adds `errand_queue_jobs` to `metrics`, read at each scrape over every
 * queue registered under `keys`, on the connection `redis()` answers.
 */
export function addQueueDepthGauge(
  metrics: PrometheusMetrics,
  redis: () => RedisConnection,
  keys: EngineKeys,
): void {
  metrics.addScrapedGauge(
    "queue_jobs",
    "Jobs in each queue by state: waiting, active, parked (a parked run, delayed until its next re-check), delayed (retries after a backoff).",
    ["queue", "state"],
    async (gauge) => {
      const connection = redis();
      const registrations = await readQueueRegistrations(connection, keys);
      const depths = await Promise.all(
        registrations.map(
          async ({ queue }) => [queue, await readQueueDepth(connection, keys, queue)] as const,
        ),
      );
      gauge.reset();
      for (const [queue, depth] of depths) {
        for (const [state, jobs] of Object.entries(depth)) gauge.set({ queue, state }, jobs);
      }
    },
  );
}
