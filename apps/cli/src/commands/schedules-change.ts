/**
 * `errand schedules pause|resume|remove <id>`: the commands that change one
 * schedule by its id, alike but for the call they make.
 */
import type { Schedules, ScheduleView } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";
import { describeSchedule } from "./schedules-list.js";

/** A command that changes schedule `<id>` by `change` and shows it as it now is. */
function scheduleChangeCommand(
  verb: "pause" | "resume",
  description: string,
  change: (schedules: Schedules, id: string) => Promise<ScheduleView>,
): CommandSpec {
  return {
    usage: `errand schedules ${verb} <id> [--json]`,
    description,
    positionals: [{ name: "id", description: "the schedule's id" }],
    options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
    async run(args, io) {
      const id = args.positional(0, "id");
      const schedule = await withErrand(args, io, (errand) => change(errand.schedules, id));
      if (args.flag("json")) writeJson(io, schedule);
      else writeLines(io, describeSchedule(schedule));
      return EXIT.ok;
    },
  };
}

/** `schedules pause`. */
export const schedulesPauseCommand = scheduleChangeCommand(
  "pause",
  "Stops the schedule ticking until it is resumed; its runs go on.",
  (schedules, id) => schedules.pause(id),
);

/** `schedules resume`. */
export const schedulesResumeCommand = scheduleChangeCommand(
  "resume",
  "Lets a paused schedule tick again, from its next tick.",
  (schedules, id) => schedules.resume(id),
);

/** `schedules remove`. */
export const schedulesRemoveCommand: CommandSpec = {
  usage: "errand schedules remove <id> [--json]",
  description:
    "Deletes the schedule; the runs it made stay. With --json it prints { id, removed }.",
  positionals: [{ name: "id", description: "the schedule's id" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const id = args.positional(0, "id");
    await withErrand(args, io, (errand) => errand.schedules.remove(id));
    if (args.flag("json")) writeJson(io, { id, removed: true });
    else writeLines(io, [`${id}: removed`]);
    return EXIT.ok;
  },
};
