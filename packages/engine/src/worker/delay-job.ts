/**
 * Moving a job this worker holds back to BullMQ's delayed set, without
 * spending one of its attempts: how parked runs and runs of another agent
 * version leave the worker. Waits out a Redis out of memory (the worker holds
 * the job until the move goes through).
 */
import type { Logger } from "@errand/runtime";
import type { Job, Scripts } from "bullmq";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";

/** A move of a held job to the delayed set. */
export interface DelayedJobMove {
  job: Job;
  /** The lock token the worker holds the job with. */
  token: string | undefined;
  /** When the job is due again (ms since the epoch). */
  until: number;
  /** Its worker's scripts. */
  scripts: Scripts;
  logger: Logger;
  /** What the move is, for the log lines of its retries. */
  write: string;
  /** Fields of the job's hash set with the move. */
  fieldsToUpdate?: Record<string, unknown>;
}

/**
 * Delays the job until `until`. Its delay is counted from the job's creation
 * (BullMQ's `timestamp`), as queue UIs read it, so "will run at" is `until`.
 */
export async function delayHeldJob(move: DelayedJobMove): Promise<void> {
  const { job, token, until, scripts } = move;
  await retryWhileRedisIsTransient(
    () =>
      scripts.moveToDelayed(job.id ?? "", job.timestamp, until - job.timestamp, token, {
        skipAttempt: true,
        ...(move.fieldsToUpdate === undefined ? {} : { fieldsToUpdate: move.fieldsToUpdate }),
      }),
    { logger: move.logger, write: move.write, fields: { runId: job.id } },
  );
}
