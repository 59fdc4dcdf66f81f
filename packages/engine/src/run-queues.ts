/**
 * The BullMQ queues a client sends runs to, opened on first use and shared by
 * every call of the client. Each queue lives under the engine's BullMQ prefix
 * (`<prefix>:{queue}`), its jobs named after their agent with `jobId = runId`.
 */
import type { Logger } from "@errand/runtime";
import { type JobsOptions, Queue } from "bullmq";
import { logBullErrors } from "./bull-errors.js";
import type { RedisConnection } from "./connection.js";
import type { EngineKeys } from "./engine-keys.js";
import type { RunJobData } from "./job-data.js";

/**
 * How a run's job is kept and retried when not told: up to 3 attempts with
 * exponential backoff for unexpected worker errors; completed jobs removed
 * (the log is the truth); failed jobs kept a week so the reaper can settle them.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 60 * 60 },
};

/** One run to enqueue. */
export interface RunJob {
  runId: string;
  agent: string;
}

/** The queues of one client. */
export interface RunQueues {
  /** The queue named `name`, opened on first use. */
  queue(name: string): Queue<RunJobData>;
  /** Enqueues `jobs` on queue `name` in one `addBulk`. */
  add(name: string, jobs: readonly RunJob[]): Promise<void>;
  /** Closes every queue opened (not the connection). */
  close(): Promise<void>;
}

/**
 * Enqueues `jobs` on `queue` in one `addBulk`: each named after its agent,
 * with `jobId = runId` (so adding a run's job again adds nothing) and `jobOptions`.
 */
export async function addRunJobs(
  queue: Queue<RunJobData>,
  jobs: readonly RunJob[],
  jobOptions: JobsOptions = DEFAULT_JOB_OPTIONS,
): Promise<void> {
  if (jobs.length === 0) return;
  await queue.addBulk(
    jobs.map(({ runId, agent }) => ({
      name: agent,
      data: { runId },
      opts: { ...jobOptions, jobId: runId },
    })),
  );
}

/**
 * Queues on `connection` (shared by all of them) under `keys.bullmqPrefix`,
 * their errors logged through `logger`.
 */
export function createRunQueues(
  connection: RedisConnection,
  keys: EngineKeys,
  logger: Logger,
  jobOptions: JobsOptions = DEFAULT_JOB_OPTIONS,
): RunQueues {
  const queues = new Map<string, Queue<RunJobData>>();
  const queue = (name: string): Queue<RunJobData> => {
    let opened = queues.get(name);
    if (!opened) {
      opened = new Queue<RunJobData>(name, { connection, prefix: keys.bullmqPrefix });
      logBullErrors(opened, logger, `queue ${name}`);
      queues.set(name, opened);
    }
    return opened;
  };
  return {
    queue,
    add: (name, jobs) => addRunJobs(queue(name), jobs, jobOptions),
    async close() {
      await Promise.all([...queues.values()].map((opened) => opened.close()));
      queues.clear();
    },
  };
}
