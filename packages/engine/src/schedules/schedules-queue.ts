/**
 * The BullMQ queue whose job schedulers tick errand's schedules: one job
 * scheduler per schedule, its id the schedule's, its jobs carrying only the
 * schedule's id (the record in Redis says the rest, so a re-upsert takes
 * effect on the next tick). BullMQ keeps one delayed job per scheduler and
 * adds the next when a worker takes the current one; its id
 * `repeat:<scheduleId>:<tick ms>` names the tick.
 */
import type { Logger } from "@errand/runtime";
import { Queue } from "bullmq";
import type { EngineKeys } from "../engine-keys.js";
import { logBullErrors } from "../queues/bull-errors.js";
import type { RedisConnection } from "../redis/connection.js";
import type { ScheduleDefinition } from "./schedule-spec.js";
import { nextTickAfter } from "./schedule-times.js";

/** What a tick's job carries. */
export interface ScheduleTickData {
  scheduleId: string;
}

/** The name of every tick job. */
const TICK_JOB_NAME = "tick";

/** Opens the schedules queue on `connection`. */
export function openSchedulesQueue(
  connection: RedisConnection,
  keys: EngineKeys,
  logger: Logger,
): Queue<ScheduleTickData> {
  const queue = new Queue<ScheduleTickData>(keys.schedulesQueue, {
    connection,
    prefix: keys.bullmqPrefix,
  });
  logBullErrors(queue, logger, "schedules queue");
  return queue;
}

/**
 * Creates or replaces the job scheduler of `schedule`. An `everyMs` one
 * starts at the next multiple of its interval, so its ticks fall on those
 * multiples (`schedule-times.ts` enumerates the same ones).
 */
export async function upsertTickScheduler(
  queue: Queue<ScheduleTickData>,
  schedule: ScheduleDefinition,
  now: number,
): Promise<void> {
  const repeat =
    schedule.everyMs !== undefined
      ? { every: schedule.everyMs, startDate: nextTickAfter(schedule, now) }
      : { pattern: schedule.cron!, tz: schedule.timezone ?? "UTC" };
  await queue.upsertJobScheduler(schedule.id, repeat, {
    name: TICK_JOB_NAME,
    data: { scheduleId: schedule.id },
    opts: { removeOnComplete: 100, removeOnFail: 100 },
  });
}

/** The tick a tick job is for, read from its id (`repeat:<scheduleId>:<tick ms>`). */
export function tickOfJobId(jobId: string): number | undefined {
  const tick = Number(jobId.slice(jobId.lastIndexOf(":") + 1));
  return Number.isSafeInteger(tick) ? tick : undefined;
}
