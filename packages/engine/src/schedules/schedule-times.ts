/**
 * When a schedule ticks: the checks of a cron expression and a time zone
 * that zod cannot make, and the ticks due between two instants. Cron is read
 * by `cron-parser`, the reader BullMQ's job schedulers use, so the ticks
 * enumerated here fall on the same milliseconds as the jobs BullMQ makes.
 * An `everyMs` schedule ticks on the multiples of its interval (it is upserted
 * with a start aligned so: `schedules-queue.ts`).
 */
// cron-parser is CommonJS whose exports Node cannot list: its functions are the default export's.
import cronParser from "cron-parser";
import { invalidSchedule, type ScheduleDefinition } from "./schedule-spec.js";

/** Throws `invalid_spec` for a time zone this runtime does not know or a cron expression cron-parser refuses. */
export function checkScheduleTimes(schedule: ScheduleDefinition): void {
  if (schedule.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: schedule.timezone });
    } catch {
      throw invalidSchedule([
        `timezone: ${JSON.stringify(schedule.timezone)} is not an IANA time zone`,
      ]);
    }
  }
  if (schedule.cron !== undefined) {
    try {
      cronParser.parseExpression(schedule.cron, { tz: schedule.timezone ?? "UTC" }).next();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw invalidSchedule([
        `cron: ${JSON.stringify(schedule.cron)} is not a cron expression (${reason})`,
      ]);
    }
  }
}

/** The first tick of `schedule` after `afterMs`. */
export function nextTickAfter(schedule: ScheduleDefinition, afterMs: number): number {
  if (schedule.everyMs !== undefined) {
    return (Math.floor(afterMs / schedule.everyMs) + 1) * schedule.everyMs;
  }
  const interval = cronParser.parseExpression(schedule.cron!, {
    tz: schedule.timezone ?? "UTC",
    currentDate: new Date(afterMs),
  });
  return interval.next().getTime();
}

/**
 * The ticks of `schedule` from `fromMs` (included: a tick BullMQ made) up to
 * `untilMs` (included), oldest first; when there are more than `most`, the
 * newest `most` of them.
 */
export function ticksBetween(
  schedule: ScheduleDefinition,
  fromMs: number,
  untilMs: number,
  most: number,
): number[] {
  const ticks = [fromMs];
  let tick = fromMs;
  for (;;) {
    tick = nextTickAfter(schedule, tick);
    if (tick > untilMs) break;
    ticks.push(tick);
    if (ticks.length > most) ticks.shift();
  }
  return ticks;
}
