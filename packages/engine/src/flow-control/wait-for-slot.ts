/**
 * A run refused a slot by a concurrency limit waits in the queue, not on the
 * worker (docs/architecture/flow-control.md#flow-control): its job is delayed until
 * the gate said to try again, without spending an attempt, and the worker's
 * slot is free for another run at once.
 */
import type { Logger } from "@errand/runtime";
import { DelayedError, type Job, type Scripts } from "bullmq";
import { delayHeldJob } from "../worker/delay-job.js";

/**
 * Delays `job` (held with `token`, moved by `scripts`) until `retryAtMs` and
 * rejects with BullMQ's `DelayedError`: the job was moved, not finished.
 */
export async function waitForSlot(
  job: Job,
  token: string | undefined,
  scripts: Scripts,
  logger: Logger,
  refused: { retryAtMs: number; limitedBy: string },
): Promise<never> {
  await delayHeldJob({
    job,
    token,
    until: refused.retryAtMs,
    scripts,
    logger,
    write: "delay of a run waiting for a concurrency slot",
  });
  logger.debug({ runId: job.id, limitedBy: refused.limitedBy }, "run waits for a concurrency slot");
  throw new DelayedError();
}
