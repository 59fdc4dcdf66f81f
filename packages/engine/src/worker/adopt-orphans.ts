/**
 * Adopting orphaned runs. A queue serves one set of agents; when every worker
 * of a queue is gone (no heartbeat for {@link LIVE_HEARTBEATS} beats) — a
 * deploy changed the set, or the last worker of a set died — its runs would
 * wait for a worker of exactly that set. A live worker that runs the agent of
 * such a run moves its job into its own queue instead: waiting, prioritized,
 * paused and delayed (parked) jobs, and active ones whose lock lapsed (their
 * worker died mid-run). A job is added to the adopter's queue under the same
 * id (on the adopter's shard of its run), then removed from the orphaned one,
 * whose every shard is looked at: a queue left by workers of another shard
 * count drains into the new one this way. Two workers adopting the same job
 * is harmless: the run's fenced log lets one attempt write and the other stops.
 */

import type { Job, JobsOptions, JobType, Queue } from "bullmq";
import type { RunJobData } from "../queues/job-data.js";
import { isLive, readQueueRegistrations } from "../queues/registry.js";
import type { RunQueues } from "../queues/run-queues.js";
import type { EngineResources } from "../resources.js";

/** The job states from which a job is adopted as it is. */
const UNHELD_STATES: JobType[] = ["waiting", "prioritized", "paused", "delayed"];

/** The most jobs one pass reads from one orphaned queue and state. */
const ADOPTION_BATCH = 200;

/** What adopting needs from the worker: its resources, and its queue and agents. */
export interface AdoptionContext extends EngineResources {
  /** The name of the adopter's own queue. */
  queue: string;
  /** Opens (or reuses) the shards of queues. */
  queues: RunQueues;
  /** The agents the adopter runs. */
  agents: ReadonlySet<string>;
  jobOptions: JobsOptions;
}

/** Whether the active job `job` of `queue` has lost its lock: its worker is gone. */
async function lockLapsed(context: AdoptionContext, queue: Queue, job: Job): Promise<boolean> {
  return (await context.redis.exists(`${queue.toKey(job.id ?? "")}:lock`)) === 0;
}

/** Moves `job` into the adopter's queue; true when it was removed from `from`. */
async function adoptJob(context: AdoptionContext, from: Queue, job: Job): Promise<boolean> {
  if (job.id === undefined) return false;
  const { priority } = job.opts;
  // Its run may have moved on in the orphaned queue: the adopted job names it alone, so its log is read.
  const data: RunJobData = { runId: job.id };
  await context.queues.ofRun(context.queue, job.id).add(job.name, data, {
    ...context.jobOptions,
    jobId: job.id,
    ...(priority === undefined || priority === 0 ? {} : { priority }),
  });
  return (await from.remove(job.id)) === 1;
}

/** Adopts the runs of `agents` waiting in (or lost by) the orphaned queue `name`; resolves with how many. */
async function adoptFrom(context: AdoptionContext, name: string): Promise<number> {
  let adopted = 0;
  for (const from of context.queues.shardsOf(name)) adopted += await adoptFromShard(context, from);
  return adopted;
}

/** {@link adoptFrom} for one shard `from` of the orphaned queue. */
async function adoptFromShard(context: AdoptionContext, from: Queue): Promise<number> {
  const ours = (job: Job | undefined): job is Job =>
    job !== undefined && context.agents.has(job.name);
  const unheld = ((await from.getJobs(UNHELD_STATES, 0, ADOPTION_BATCH - 1)) as Job[]).filter(ours);
  const active = ((await from.getJobs(["active"], 0, ADOPTION_BATCH - 1)) as Job[]).filter(ours);
  const lapsed = [];
  for (const job of active) if (await lockLapsed(context, from, job)) lapsed.push(job);
  let adopted = 0;
  for (const job of [...unheld, ...lapsed]) if (await adoptJob(context, from, job)) adopted += 1;
  return adopted;
}

/**
 * One pass: every registered queue other than the adopter's with no live
 * worker and an agent the adopter runs gives up those agents' runs.
 * Resolves with how many jobs were adopted.
 */
async function adoptOrphans(context: AdoptionContext): Promise<number> {
  const now = context.now();
  const orphaned = (await readQueueRegistrations(context.redis, context.keys)).filter(
    (record) =>
      record.queue !== context.queue &&
      !isLive(record, now) &&
      record.agents.some((agent) => context.agents.has(agent)),
  );
  let adopted = 0;
  for (const record of orphaned) {
    const count = await adoptFrom(context, record.queue);
    if (count > 0) {
      context.logger.info(
        { from: record.queue, count, lastSeenAt: record.lastSeenAt },
        "adopted the runs of a queue without a live worker",
      );
    }
    adopted += count;
  }
  return adopted;
}

/** Adoption passes running in the background. */
export interface Adoption {
  /** Stops the passes, waiting for one in progress. */
  stop(): Promise<void>;
}

/** Runs {@link adoptOrphans} at once and then every `intervalMs`, one pass at a time; a failed pass is logged. */
export function startAdoption(context: AdoptionContext, intervalMs: number): Adoption {
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= adoptOrphans(context)
      .then(() => undefined)
      .catch((error: unknown) =>
        context.logger.warn({ error: String(error) }, "adopting orphaned runs failed"),
      )
      .finally(() => {
        running = undefined;
      });
  };
  pass();
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
