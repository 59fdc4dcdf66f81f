/**
 * What a queue holds, for `doctor`, dashboards and tests: BullMQ's job counts
 * and, for the runs still to be taken (waiting, prioritized, paused, or
 * delayed — parked parents included), how many there are of each agent.
 */
import { Queue } from "bullmq";
import type { RedisConnection } from "./connection.js";
import type { EngineKeys } from "./engine-keys.js";

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
   * 1,000 of them: a queue holding more counts only those.
   */
  byAgent: Record<string, number>;
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

/** Reads the backlog of queue `name` on `connection` (not closed). */
export async function readQueueBacklog(
  connection: RedisConnection,
  keys: EngineKeys,
  name: string,
): Promise<QueueBacklog> {
  const queue = new Queue(name, { connection, prefix: keys.bullmqPrefix });
  try {
    const counts = await readJobCounts(queue);
    const jobs = await queue.getJobs(
      ["waiting", "prioritized", "paused", "delayed"],
      0,
      SAMPLED_JOBS - 1,
    );
    const byAgent: Record<string, number> = {};
    for (const job of jobs) if (job) byAgent[job.name] = (byAgent[job.name] ?? 0) + 1;
    return { queue: name, ...counts, byAgent };
  } finally {
    await queue.close();
  }
}
