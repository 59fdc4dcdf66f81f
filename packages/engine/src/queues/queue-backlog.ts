/**
 * What a queue holds, for `doctor`, dashboards and tests: BullMQ's job counts
 * over its shards (and of each shard) and, for the runs still to be taken
 * (waiting, prioritized, paused, or delayed — parked parents included), how
 * many there are of each agent.
 */
import { Queue } from "bullmq";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { type QueueShard, shardsOfQueue } from "./queue-shards.js";

/** The most waiting jobs read to count them by agent. */
const SAMPLED_JOBS = 1_000;

/** The jobs of one queue by state, and its runs to be taken by agent. */
export interface QueueBacklog {
  queue: string;
  /** Waiting, prioritized or paused: not yet taken by a worker. */
  waiting: number;
  active: number;
  /** Delayed: retries after a backoff, and parked parents until their re-check. */
  delayed: number;
  failed: number;
  /**
   * The runs to be taken (waiting and delayed) by agent, from the first
   * 1,000 of each shard: a shard holding more counts only those.
   */
  byAgent: Record<string, number>;
  /** The counts of each shard, in order (one for a queue of one shard). */
  shards: JobCounts[];
}

/** A queue's job counts: waiting (prioritized and paused included), active, delayed, failed. */
export type JobCounts = Pick<QueueBacklog, "waiting" | "active" | "delayed" | "failed">;

/** Reads `queue`'s {@link JobCounts} in one call. */
export async function readJobCounts(queue: Queue): Promise<JobCounts> {
  const counts = await queue.getJobCounts(
    "waiting",
    "prioritized",
    "paused",
    "active",
    "delayed",
    "failed",
  );
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.paused ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
  };
}

/**
 * Runs `read` on a BullMQ queue of each shard of queue `name`, opened on
 * `connection` (not closed) and closed once read; resolves with the reads in shard order.
 */
export async function readEachShard<T>(
  connection: RedisConnection,
  keys: EngineKeys,
  name: string,
  read: (queue: Queue, shard: QueueShard) => Promise<T>,
): Promise<T[]> {
  return Promise.all(
    shardsOfQueue(keys, name).map(async (shard) => {
      const queue = new Queue(shard.name, { connection, prefix: shard.prefix });
      try {
        return await read(queue, shard);
      } finally {
        await queue.close();
      }
    }),
  );
}

/** `counts` summed, state by state. */
export function sumJobCounts(counts: readonly JobCounts[]): JobCounts {
  const sum = (state: keyof JobCounts) => counts.reduce((total, count) => total + count[state], 0);
  return {
    waiting: sum("waiting"),
    active: sum("active"),
    delayed: sum("delayed"),
    failed: sum("failed"),
  };
}

/** Reads the backlog of queue `name` (every shard) on `connection` (not closed). */
export async function readQueueBacklog(
  connection: RedisConnection,
  keys: EngineKeys,
  name: string,
): Promise<QueueBacklog> {
  const byAgent: Record<string, number> = {};
  const shards = await readEachShard(connection, keys, name, async (queue) => {
    const counts = await readJobCounts(queue);
    const jobs = await queue.getJobs(
      ["waiting", "prioritized", "paused", "delayed"],
      0,
      SAMPLED_JOBS - 1,
    );
    for (const job of jobs) if (job) byAgent[job.name] = (byAgent[job.name] ?? 0) + 1;
    return counts;
  });
  return { queue: name, ...sumJobCounts(shards), byAgent, shards };
}
