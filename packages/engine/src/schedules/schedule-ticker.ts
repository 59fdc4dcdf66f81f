/**
 * The schedule ticker: the part of a worker process that turns ticks into
 * runs (docs/architecture/schedules.md#who-turns-a-tick-into-a-run). A BullMQ
 * `Worker` on the schedules queue takes each tick job — BullMQ hands a job to
 * one worker at a time, and adds the schedule's next job as it does — and
 * fires the tick through a client of its own, under the tick's idempotency
 * key (`fire-tick.ts`). Every errand worker runs one unless told not to, so
 * schedules tick as long as any worker lives.
 */
import { Worker } from "bullmq";
import { createErrand } from "../client/client.js";
import { logBullErrors } from "../queues/bull-errors.js";
import { CLOSE_ALLOWANCE_MS, closeWithin, runEach } from "../redis/closing.js";
import { closeConnection, openJobsConnection } from "../redis/connection.js";
import { type EngineOptions, openResources } from "../resources.js";
import { handleTick } from "./fire-tick.js";
import type { ScheduleTickData } from "./schedules-queue.js";
import { tickOfJobId } from "./schedules-queue.js";

/** How many tick jobs one ticker handles at once: a long catch-up does not hold back other schedules. */
const TICKER_CONCURRENCY = 4;

/** A running ticker. */
export interface ScheduleTicker {
  /** Stops taking tick jobs, lets those in hand finish, and closes its connections. */
  close(): Promise<void>;
}

/** Starts a ticker on `options`' Redis and prefix; resolves once it takes jobs. */
export async function startScheduleTicker(options: EngineOptions): Promise<ScheduleTicker> {
  const resources = openResources(options, { name: "schedule ticker commands" });
  const { redis, keys, logger, now } = resources;
  const errand = createErrand(options);
  const connection = openJobsConnection(options.connection, {
    logger,
    name: "schedule ticker jobs",
  });
  const context = { errand, redis, keys, logger, now: () => now().getTime() };
  const worker = new Worker<ScheduleTickData, string[]>(
    keys.schedulesQueue,
    async (job) => {
      const tick = tickOfJobId(job.id ?? "") ?? job.timestamp + (job.delay ?? 0);
      return handleTick(context, job.data.scheduleId, tick);
    },
    { connection, prefix: keys.bullmqPrefix, concurrency: TICKER_CONCURRENCY },
  );
  logBullErrors(worker, logger, "schedule ticker");
  await worker.waitUntilReady();
  return {
    async close() {
      await closeWithin({
        close: () =>
          runEach([
            () => worker.close(),
            () => errand.close(),
            () => Promise.all([closeConnection(redis), closeConnection(connection)]),
          ]),
        withinMs: CLOSE_ALLOWANCE_MS,
        cut() {
          redis.disconnect();
          connection.disconnect();
        },
        logger,
      });
    },
  };
}
