/**
 * The BullMQ queues a client sends runs to, opened on first use and shared by
 * every call of the client. A queue of runs is one BullMQ queue per shard
 * (`queue-shards.ts`): a run's job goes to its run's shard, named after its
 * agent with `jobId = runId`.
 */
import type { Logger } from "@errand/runtime";
import { type JobsOptions, Queue } from "bullmq";
import { addToGroup } from "../add-to-group.js";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { logBullErrors } from "./bull-errors.js";
import type { CarriedRunQueued, RunJobData } from "./job-data.js";
import { type QueueShard, shardOfRun, shardsOfQueue } from "./queue-shards.js";

/**
 * How long, and how many, completed jobs (runs that succeeded or were
 * cancelled while a worker held them) each queue keeps, so that queue UIs
 * list them: a day, and at most the last 1,000. The log is the truth; the
 * job is only what the queue shows.
 */
export const DEFAULT_KEEP_COMPLETED_JOBS = { age: 24 * 60 * 60, count: 1_000 } as const;

/**
 * How long failed jobs (failed runs, and jobs that failed for good) are
 * kept: a week, so the reaper can settle the runs of the latter and queue
 * UIs show both.
 */
export const DEFAULT_KEEP_FAILED_JOBS = { age: 7 * 24 * 60 * 60 } as const;

/**
 * How a run's job is kept and retried when not told: up to 3 attempts with
 * exponential backoff for unexpected worker errors (a run that failed is
 * never retried: its job fails at once); completed jobs kept
 * {@link DEFAULT_KEEP_COMPLETED_JOBS}, failed ones {@link DEFAULT_KEEP_FAILED_JOBS}.
 * Override with the `jobOptions` of `createErrand` and `createWorker`.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: DEFAULT_KEEP_COMPLETED_JOBS,
  removeOnFail: DEFAULT_KEEP_FAILED_JOBS,
};

/**
 * How the job of a child a worker's run spawns is kept when the worker is
 * not told: as {@link DEFAULT_JOB_OPTIONS}, but removed as it completes. A
 * fan-out's children would otherwise fill the queue's kept completed jobs
 * (and cost BullMQ's trim of them at each completion), while each child's
 * result is in errand's store for the parent to collect.
 */
export const DEFAULT_CHILD_JOB_OPTIONS: JobsOptions = {
  ...DEFAULT_JOB_OPTIONS,
  removeOnComplete: true,
};

/** One run to enqueue. */
export interface RunJob {
  runId: string;
  agent: string;
  /** Its BullMQ priority (1 = first), when it has one: see `MAX_RUN_PRIORITY`. */
  priority?: number;
  /** Its `run-queued`, for the job to carry (`carriedRunQueued`). */
  queued?: CarriedRunQueued;
}

/** The queues of one client, by the name of a queue of runs (as the registry names it). */
export interface RunQueues {
  /** The BullMQ queue of `shard`, opened on first use. */
  open(shard: QueueShard): Queue<RunJobData>;
  /** The BullMQ queue of queue `name` that holds (or would hold) run `runId`'s job. */
  ofRun(name: string, runId: string): Queue<RunJobData>;
  /** The BullMQ queues of every shard of queue `name`. */
  shardsOf(name: string): Queue<RunJobData>[];
  /** Enqueues `jobs` on queue `name`: one `addBulk` per shard (`add` for a lone job). */
  add(name: string, jobs: readonly RunJob[]): Promise<void>;
  /** Closes every queue opened (not the connection). */
  close(): Promise<void>;
}

/**
 * The BullMQ options of run `runId`'s job: `jobOptions`, its `jobId` (the
 * runId, so adding a run's job again adds nothing) and its priority when it
 * has one. Not `{ ...jobOptions, jobId, … }`: on Node 20 a spread followed by
 * new keys costs microseconds.
 */
function jobOptionsOf(
  runId: string,
  priority: number | undefined,
  jobOptions: JobsOptions,
): JobsOptions {
  const opts: JobsOptions = Object.assign({}, jobOptions);
  opts.jobId = runId;
  if (priority !== undefined) opts.priority = priority;
  return opts;
}

/** The data of `job`'s BullMQ job: its runId, and its `run-queued` when given. */
function jobDataOf({ runId, queued }: RunJob): RunJobData {
  return queued === undefined ? { runId } : { runId, queued };
}

/**
 * Enqueues `jobs` on `queue`: each named after its agent, with `jobId =
 * runId`, its priority when it has one, its `run-queued` in its data when
 * given, and `jobOptions`. Several go in one `addBulk`; a lone job (every
 * `fire`) goes with `add`, the same one script call without the ioredis
 * pipeline `addBulk` builds, which copies each of the about 50 scripts
 * BullMQ defines on its connection (about 100 µs of CPU a call, measured).
 */
async function addRunJobs(
  queue: Queue<RunJobData>,
  jobs: readonly RunJob[],
  jobOptions: JobsOptions = DEFAULT_JOB_OPTIONS,
): Promise<void> {
  const [lone] = jobs;
  if (jobs.length === 1) {
    await queue.add(
      lone!.agent,
      jobDataOf(lone!),
      jobOptionsOf(lone!.runId, lone!.priority, jobOptions),
    );
    return;
  }
  await queue.addBulk(
    jobs.map((job) => ({
      name: job.agent,
      data: jobDataOf(job),
      opts: jobOptionsOf(job.runId, job.priority, jobOptions),
    })),
  );
}

/**
 * Queues on `connection` (shared by all of them), their errors logged
 * through `logger`.
 */
export function createRunQueues(
  connection: RedisConnection,
  keys: EngineKeys,
  logger: Logger,
  jobOptions: JobsOptions = DEFAULT_JOB_OPTIONS,
): RunQueues {
  const queues = new Map<string, Queue<RunJobData>>();
  const open = (shard: QueueShard): Queue<RunJobData> => {
    const key = `${shard.prefix}:${shard.name}`;
    let opened = queues.get(key);
    if (!opened) {
      opened = new Queue<RunJobData>(shard.name, { connection, prefix: shard.prefix });
      logBullErrors(opened, logger, `queue ${shard.name}`);
      queues.set(key, opened);
    }
    return opened;
  };
  const ofRun = (name: string, runId: string) => open(shardOfRun(keys, name, runId));
  return {
    open,
    ofRun,
    shardsOf: (name) => shardsOfQueue(keys, name).map(open),
    async add(name, jobs) {
      // A lone job (every `fire`): its shard's queue without grouping.
      const [lone] = jobs;
      if (jobs.length === 1) return addRunJobs(ofRun(name, lone!.runId), jobs, jobOptions);
      const byShard = new Map<Queue<RunJobData>, RunJob[]>();
      for (const job of jobs) {
        addToGroup(byShard, ofRun(name, job.runId), job);
      }
      await Promise.all(
        [...byShard].map(([queue, shardJobs]) => addRunJobs(queue, shardJobs, jobOptions)),
      );
    },
    async close() {
      await Promise.all([...queues.values()].map((opened) => opened.close()));
      queues.clear();
    },
  };
}
