/**
 * What a caller hands `schedules.upsert`: the schedule's id, the run each
 * tick fires, when it ticks (`cron` in a time zone, or `everyMs`) and what a
 * tick does when the previous run still runs (`overlap`) or when ticks were
 * missed (`catchUp`). One zod schema is the source of truth; what it cannot
 * check alone (a cron expression, a time zone) `schedule-times.ts` checks.
 */
import { ErrandError } from "@errand/core";
import { z } from "zod";

/** The shortest `everyMs`: one second. A shorter interval is refused at upsert. */
export const MIN_SCHEDULE_INTERVAL_MS = 1_000;

/**
 * The most ticks one late tick fires under `catchUp: "all"`: the newest this
 * many of the ticks missed; older ones are dropped.
 */
export const MAX_CATCH_UP_TICKS = 100;

/**
 * How late a tick may start and still count as on time, in ms. A tick that
 * starts later was missed (its processes or Redis were down): `catchUp` says
 * what becomes of it.
 */
export const LATE_TICK_MS = 5_000;

/** The longest schedule id, in characters. */
const MAX_SCHEDULE_ID_LENGTH = 128;

/** One schedule to create or replace. */
export const ScheduleSpec = z
  .strictObject({
    /** The schedule's name: letters, digits, `.`, `_` and `-`. Upserting an id again replaces it. */
    id: z
      .string()
      .min(1)
      .max(MAX_SCHEDULE_ID_LENGTH)
      .regex(/^[A-Za-z0-9._-]+$/, "id may hold only letters, digits, '.', '_' and '-'"),
    /** The agent each tick fires. */
    agent: z.string().min(1),
    /** The input of each run (`null` for none), checked against the agent's input schema at upsert. */
    input: z.unknown(),
    /** A cron expression (5 fields, or 6 with seconds), read in `timezone`. */
    cron: z.string().min(1).optional(),
    /** An interval in ms, at least {@link MIN_SCHEDULE_INTERVAL_MS}. */
    everyMs: z.number().int().min(MIN_SCHEDULE_INTERVAL_MS).optional(),
    /** The IANA time zone `cron` is read in. Default `UTC`. */
    timezone: z.string().min(1).optional(),
    /**
     * When a tick comes while the schedule's previous run still runs: `skip`
     * the tick (the default), `allow` a second run, or `cancel-previous` and fire.
     */
    overlap: z.enum(["skip", "allow", "cancel-previous"]).optional(),
    /**
     * What a missed tick (one started over {@link LATE_TICK_MS} late) fires:
     * `none`, only the `last` tick due (the default), or `all` of them, at
     * most {@link MAX_CATCH_UP_TICKS}.
     */
    catchUp: z.enum(["none", "last", "all"]).optional(),
    /** Labels each run carries, beside the schedule's own (`errand.schedule`, `errand.tick`). */
    metadata: z.record(z.string(), z.string()).optional(),
  })
  .refine((spec) => (spec.cron === undefined) !== (spec.everyMs === undefined), {
    message: "give exactly one of cron and everyMs",
    path: ["cron"],
  })
  .refine((spec) => spec.timezone === undefined || spec.cron !== undefined, {
    message: "timezone applies to cron only",
    path: ["timezone"],
  });
export type ScheduleSpec = z.infer<typeof ScheduleSpec>;

/** A schedule as stored: its spec with every default filled in. */
export interface ScheduleDefinition extends ScheduleSpec {
  overlap: NonNullable<ScheduleSpec["overlap"]>;
  catchUp: NonNullable<ScheduleSpec["catchUp"]>;
}

/** Refuses a schedule: `invalid_spec`, naming each problem with its path. */
export function invalidSchedule(problems: readonly string[]): ErrandError {
  return new ErrandError("invalid_spec", `invalid schedule: ${problems.join("; ")}`, {
    details: { issues: problems },
  });
}

/** `spec` checked against {@link ScheduleSpec}, its defaults filled in; throws `invalid_spec`. */
export function parseScheduleSpec(spec: unknown): ScheduleDefinition {
  const parsed = ScheduleSpec.safeParse(spec);
  if (!parsed.success) {
    throw invalidSchedule(
      parsed.error.issues.map(
        (issue) => `${issue.path.length === 0 ? "spec" : issue.path.join(".")}: ${issue.message}`,
      ),
    );
  }
  return {
    ...parsed.data,
    overlap: parsed.data.overlap ?? "skip",
    catchUp: parsed.data.catchUp ?? "last",
  };
}
