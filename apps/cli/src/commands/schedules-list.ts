/**
 * `errand schedules list`: every schedule with when it fires next, when it
 * last fired and the runs it made last.
 */
import type { ScheduleView } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** The lines that show one schedule. */
export function describeSchedule(schedule: ScheduleView): string[] {
  const when =
    schedule.cron === undefined
      ? `every ${schedule.everyMs} ms`
      : `cron "${schedule.cron}" (${schedule.timezone ?? "UTC"})`;
  return [
    `${schedule.id}: ${schedule.agent}, ${when}, overlap ${schedule.overlap}, catch-up ${schedule.catchUp}${schedule.paused ? ", paused" : ""}`,
    `  next fire: ${schedule.nextFireAt ?? "none"}   last fire: ${schedule.lastFireAt ?? "never"}`,
    ...schedule.lastRuns.map((run) => `  ${run.tick}  ${run.runId}`),
  ];
}

/** `schedules list`. */
export const schedulesListCommand: CommandSpec = {
  usage: "errand schedules list [--json]",
  description: [
    "Lists every schedule by id: its agent and timing, whether it is paused, its next",
    "and last fire and its newest runs (tick and run id). With --json it prints an",
    "array of { id, agent, cron|everyMs, paused, nextFireAt?, lastFireAt?, lastRuns }.",
  ].join("\n"),
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const schedules = await withErrand(args, io, (errand) => errand.schedules.list());
    if (args.flag("json")) writeJson(io, schedules);
    else if (schedules.length === 0) writeLines(io, ["no schedules"]);
    else writeLines(io, schedules.flatMap(describeSchedule));
    return EXIT.ok;
  },
};
