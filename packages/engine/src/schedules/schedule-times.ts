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

/** How many fields a cron expression has: 5, or 6 with seconds first. */
const CRON_FIELD_COUNTS = [5, 6];

/**
 * Why `cron` has the wrong number of fields, or `undefined` when it has 5 or
 * 6 (or is an alias such as `@daily`). cron-parser itself fills the fields
 * left out, so `5` alone would tick every Friday at midnight.
 */
function cronFieldCountProblem(cron: string): string | undefined {
  const trimmed = cron.trim();
  if (trimmed.startsWith("@")) return undefined;
  const fields = trimmed.split(/\s+/).length;
  if (CRON_FIELD_COUNTS.includes(fields)) return undefined;
  return `it has ${fields} field${fields === 1 ? "" : "s"}; write 5 (minute hour day-of-month month day-of-week), or 6 with seconds first`;
}

/**
 * Throws `invalid_spec` for a time zone this runtime does not know, a cron
 * expression without 5 or 6 fields, or one cron-parser refuses.
 */
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
    const fieldCountProblem = cronFieldCountProblem(schedule.cron);
    if (fieldCountProblem !== undefined) {
      throw invalidSchedule([
        `cron: ${JSON.stringify(schedule.cron)} is not a cron expression (${fieldCountProblem})`,
      ]);
    }
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
