/**
 * What a worker does with each job it takes: the job names the run (and may
 * carry its `run-queued`, taken instead of a read of the log when the job
 * was never started before), the run's log decides (`processRun`). A run cut short by Redis being briefly
 * away resumes from its log in the same job once Redis is back, and the
 * outcome then says where the job goes: a parked run's job leaves the worker
 * until what it waits for settles, a throttled one waits in the queue for a
 * slot, and one fired for another version of its agent goes back to the
 * queue for a worker that runs it.
 */
import { isErrandError } from "@errand/core";
import type { Logger } from "@errand/runtime";
import { type Job, UnrecoverableError } from "bullmq";
import { waitForSlot } from "../flow-control/wait-for-slot.js";
import { parseRunJobData, type RunJobData, runQueuedOfJob } from "../queues/job-data.js";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import { jobResultOf } from "./failed-run-job.js";
import { handBackJob } from "./other-versions.js";
import type { ParkedRuns } from "./park.js";
import type { ProcessOutcome } from "./process-outcome.js";
import { processRun } from "./process-run.js";
import type { RunProcessorContext } from "./run-processor-context.js";
import type { RunWorker } from "./run-worker.js";
import { announceJobTaken } from "./taken-jobs.js";

/** What the handler needs beside the job. */
export interface JobHandlerOptions {
  context: RunProcessorContext;
  parked: ParkedRuns;
  logger: Logger;
  /** The version this worker runs of each of its agents, by name. */
  versionOf(agent: string): string | undefined;
  /** Whether a job's first delivery starts its run optimistically (`WorkerOptions.optimisticStart`). */
  optimisticStart: boolean;
}

/** The handler of a worker's jobs. */
export interface JobHandler {
  /** Handles `job` (locked by `token`), taken by `worker`; resolves with the job's result. */
  handle(worker: RunWorker, job: Job<RunJobData>, token?: string): Promise<ProcessOutcome>;
  /** How many jobs it is handling now. */
  active(): number;
}

/**
 * The job handler of a worker. A job whose data names no run fails for good
 * (`UnrecoverableError`); other errors fail the job for BullMQ to retry.
 */
export function createJobHandler(options: JobHandlerOptions): JobHandler {
  const { context, parked, logger } = options;
  let activeJobs = 0;
  return {
    active: () => activeJobs,
    async handle(worker, job, token) {
      let data: RunJobData;
      try {
        data = parseRunJobData(job.id, job.data);
      } catch (error) {
        if (isErrandError(error)) throw new UnrecoverableError(error.message);
        throw error;
      }
      const { runId } = data;
      announceJobTaken(runId);
      activeJobs += 1;
      try {
        const delayedBefore = job.delay > 0;
        let firstDelivery = job.attemptsMade === 0 && job.stalledCounter === 0;
        // Never started before (BullMQ counts each move to active, a parked job's return too):
        // only then is the log where the job's run-queued left it.
        let neverStarted = job.attemptsStarted === 1;
        // A run cut short by Redis being briefly away resumes from its log once Redis is back, in
        // this job: no BullMQ attempt is spent on it (one would fail the run for good after three).
        const outcome = await retryWhileRedisIsTransient(
          () => {
            const firstTry = firstDelivery;
            const unstarted = neverStarted;
            firstDelivery = false;
            neverStarted = false;
            const queued = unstarted ? runQueuedOfJob(runId, data.queued) : undefined;
            return processRun(context, runId, job.name, {
              first: firstTry && options.optimisticStart,
              delayedBefore,
              ...(queued === undefined ? {} : { queued }),
            });
          },
          { logger, write: "run of the job's steps", fields: { runId } },
        );
        if (outcome.kind === "parked") await parked.park(job, token, outcome, worker.scripts);
        if (outcome.kind === "throttled")
          await waitForSlot(job, token, worker.scripts, logger, outcome);
        if (outcome.kind === "other-version") {
          await handBackJob(job, token, worker.scripts, logger, {
            run: outcome.agentVersion,
            worker: options.versionOf(job.name) ?? "",
          });
        }
        return jobResultOf(outcome);
      } finally {
        activeJobs -= 1;
      }
    },
  };
}
