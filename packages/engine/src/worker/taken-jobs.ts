/**
 * The diagnostics channel on which a worker tells each job it takes, as its
 * processor starts on it: the moment BullMQ handed the job over (woken by
 * the queue's marker, the job moved to active), before the run's log is
 * read. For profiling (the bench's latency profile splits `pickup` there);
 * nothing is built without a subscriber.
 */
import { channel } from "node:diagnostics_channel";

/** The `node:diagnostics_channel` name on which a worker announces each job it takes, as a {@link WorkerJobTaken}. */
export const WORKER_JOB_TAKEN_CHANNEL = "errand:worker:job-taken";

/** What {@link WORKER_JOB_TAKEN_CHANNEL} carries: one job a worker's processor started on. */
export interface WorkerJobTaken {
  runId: string;
  /** When the processor started on it, in ms since the epoch, with sub-millisecond precision. */
  takenAt: number;
}

const takenJobs = channel(WORKER_JOB_TAKEN_CHANNEL);

/** Announces on {@link WORKER_JOB_TAKEN_CHANNEL} that run `runId`'s job was taken now, when anyone listens. */
export function announceJobTaken(runId: string): void {
  if (!takenJobs.hasSubscribers) return;
  const taken: WorkerJobTaken = { runId, takenAt: performance.timeOrigin + performance.now() };
  takenJobs.publish(taken);
}
