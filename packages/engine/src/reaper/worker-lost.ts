/**
 * Runs whose BullMQ job failed for good. A job lands in its queue's failed
 * set after its last attempt; when its run's log is not settled, nobody else
 * will settle it, so the reaper appends `failed`: `worker_lost` when the job
 * failed because its worker vanished (it stalled more than `maxStalledCount`
 * times, or started more than `maxStartedAttempts` times), `internal` with
 * the job's `failedReason` otherwise.
 */
import type { RunError } from "@errand/core";
import { isRunId } from "@errand/core/ops";
import type { Job, Queue } from "bullmq";
import { appendFailure } from "./append-failure.js";
import type { ReaperContext } from "./context.js";

/** BullMQ's reasons for failing a job whose worker vanished. */
const LOST_WORKER_REASONS = [
  "job stalled more than allowable limit",
  "job started more than allowable limit",
];

/** The error a run gets for its job that failed with `failedReason`. */
function errorOfFailedJob(failedReason: string | undefined): RunError {
  const reason = failedReason ?? "";
  if (LOST_WORKER_REASONS.some((lost) => reason.includes(lost))) {
    return {
      code: "worker_lost",
      message: `the run's worker was lost: ${reason}`,
      retryable: true,
    };
  }
  return {
    code: "internal",
    message: `the run's job failed for good: ${reason || "no reason given"}`,
    retryable: false,
  };
}

/** The run of a job: its data's runId, else its id (jobId = runId). */
function runIdOfJob(job: Job): string | undefined {
  const fromData = (job.data as { runId?: unknown } | undefined)?.runId;
  const runId = typeof fromData === "string" ? fromData : job.id;
  return isRunId(runId) ? runId : undefined;
}

/** What looking at one failed job did. */
type JobOutcome = "settled" | "done" | "error";

/** What reading one queue's failed jobs did. */
export interface FailedJobsReport {
  /** Runs this call settled. */
  settled: number;
  /** Jobs whose run could not be settled (read them again next time). */
  errors: number;
}

/**
 * Settles the run of one failed job unless it settled. An error is logged
 * and reported, so that the caller reads the job again later.
 */
async function reapFailedJob(context: ReaperContext, job: Job): Promise<JobOutcome> {
  const runId = runIdOfJob(job);
  if (runId === undefined) return "done";
  try {
    const head = await context.store.readHead(runId);
    if (head === undefined || head.settledAt !== undefined) return "done";
    const error = errorOfFailedJob(job.failedReason);
    const at = context.now().toISOString();
    const settled = (await appendFailure(context.store, runId, error, at)) === "settled";
    if (settled) {
      context.logger.warn(
        { runId, jobId: job.id, code: error.code },
        "run of a failed job settled",
      );
    }
    return settled ? "settled" : "done";
  } catch (error) {
    context.logger.warn(
      { runId, jobId: job.id, err: error },
      "could not settle the run of a failed job",
    );
    return "error";
  }
}

/**
 * Settles the runs of the jobs in the failed sets of queue `name`'s shards
 * that finished at or after `sinceMs` (all of them when undefined), newest first.
 */
export async function reapFailedJobs(
  context: ReaperContext,
  name: string,
  sinceMs: number | undefined,
): Promise<FailedJobsReport> {
  const reports = await Promise.all(
    context.queues.shardsOf(name).map((queue) => reapFailedJobsOf(context, queue, sinceMs)),
  );
  return {
    settled: reports.reduce((sum, report) => sum + report.settled, 0),
    errors: reports.reduce((sum, report) => sum + report.errors, 0),
  };
}

/** {@link reapFailedJobs} of one BullMQ queue. */
async function reapFailedJobsOf(
  context: ReaperContext,
  queue: Queue,
  sinceMs: number | undefined,
): Promise<FailedJobsReport> {
  const report: FailedJobsReport = { settled: 0, errors: 0 };
  for (let start = 0; ; start += context.batchSize) {
    const jobs = (await queue.getFailed(start, start + context.batchSize - 1)).filter(
      (job): job is Job => job !== undefined,
    );
    const fresh = jobs.filter((job) => sinceMs === undefined || (job.finishedOn ?? 0) >= sinceMs);
    const outcomes = await Promise.all(fresh.map((job) => reapFailedJob(context, job)));
    report.settled += outcomes.filter((outcome) => outcome === "settled").length;
    report.errors += outcomes.filter((outcome) => outcome === "error").length;
    if (jobs.length < context.batchSize || fresh.length < jobs.length) return report;
  }
}
