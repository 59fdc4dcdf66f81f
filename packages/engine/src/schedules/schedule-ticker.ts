/**
 * The schedule ticker: the part of a worker process that turns ticks into
 * runs (docs/architecture/schedules.md#who-turns-a-tick-into-a-run). A BullMQ
 * `Worker` on the schedules queue takes each tick job — BullMQ hands a job to
 * one worker at a time, and adds the schedule's next job as it does — and
 * fires the tick with the worker's own fire context, under the tick's
 * idempotency key (`fire-tick.ts`). Every errand worker runs one unless told
 * not to, so schedules tick as long as any worker lives.
 *
 * It costs nothing until a schedule exists: until then it only looks, every
 * {@link SCHEDULES_WATCH_MS}, whether one does, on the worker's command
 * connection; once one does, its BullMQ worker shares the worker's BullMQ
 * connection and adds one blocking connection of its own. Through an outage
 * of Redis both wait: the look is asked again, and BullMQ reconnects.
 */
import type { RunHead } from "@errand/store";
import { Worker } from "bullmq";
import { cancel } from "../client/cancel.js";
import { fire } from "../client/fire.js";
import type { FireContext } from "../client/fire-context.js";
import { logBullErrors } from "../queues/bull-errors.js";
import type { RedisConnection } from "../redis/connection.js";
import { handleTick, type TickContext } from "./fire-tick.js";
import { LATE_TICK_MS } from "./schedule-spec.js";
import { type ScheduleTickData, tickOfJobId } from "./schedules-queue.js";

/** How many tick jobs one ticker handles at once: a long catch-up does not hold back other schedules. */
const TICKER_CONCURRENCY = 4;

/**
 * How often a ticker not yet started looks whether a schedule exists, in ms:
 * well under {@link LATE_TICK_MS}, so that the first tick of a fleet's first
 * schedule still starts on time.
 */
export const SCHEDULES_WATCH_MS = Math.min(2_000, LATE_TICK_MS / 2);

/** What a ticker works with: the worker's. */
export interface ScheduleTickerParts {
  /** What fires, cancels and reads runs (and whose command connection the ticker looks with). */
  fire: FireContext;
  /** The connection of the worker's BullMQ commands, which the ticker's BullMQ worker shares. */
  bullConnection: RedisConnection;
}

/** A running ticker. */
export interface ScheduleTicker {
  /** Stops looking and taking tick jobs, and lets those in hand finish; the connections stay the worker's to close. */
  close(): Promise<void>;
}

/** The tick context of a ticker on `context`. */
function tickContext(context: FireContext): TickContext {
  const { store, redis, keys, logger, now } = context;
  return {
    fire: (spec) => fire(context, spec),
    cancel: (runId, reason) => cancel(context, runId, { reason, by: "schedule" }),
    readHead: (runId): Promise<RunHead | undefined> => store.readHead(runId),
    redis,
    keys,
    logger,
    now: () => now().getTime(),
  };
}

/** Starts a ticker on `parts`: it takes tick jobs from the first time it finds a schedule. */
export function startScheduleTicker(parts: ScheduleTickerParts): ScheduleTicker {
  const { redis, keys, logger } = parts.fire;
  const context = tickContext(parts.fire);
  let worker: Worker<ScheduleTickData, string[]> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function startTaking(): void {
    worker = new Worker<ScheduleTickData, string[]>(
      keys.schedulesQueue,
      async (job) => {
        const tick = tickOfJobId(job.id ?? "") ?? job.timestamp + (job.delay ?? 0);
        return handleTick(context, job.data.scheduleId, tick);
      },
      {
        connection: parts.bullConnection,
        prefix: keys.bullmqPrefix,
        concurrency: TICKER_CONCURRENCY,
      },
    );
    logBullErrors(worker, logger, "schedule ticker");
    worker.on("failed", (job, error) => {
      const tick = tickOfJobId(job?.id ?? "");
      logger.warn(
        {
          schedule: job?.data.scheduleId,
          ...(tick === undefined ? {} : { tick: new Date(tick).toISOString() }),
          error: error.message,
        },
        "schedule tick failed",
      );
    });
    logger.info({}, "schedule ticker started: a schedule exists");
  }

  async function watch(): Promise<void> {
    try {
      const exists = (await redis.exists(keys.schedules)) === 1;
      if (exists && !closed) startTaking();
    } catch (error) {
      logger.debug({ error: String(error) }, "schedule ticker could not look for schedules");
    }
    if (worker === undefined && !closed) timer = setTimeout(watch, SCHEDULES_WATCH_MS);
  }

  void watch();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await worker?.close();
    },
  };
}
