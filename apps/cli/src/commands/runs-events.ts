/**
 * `errand runs events <runId>`: a run's log as it stands.
 */
import type { RunEvent } from "@errand/core";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { eventLine } from "../event-lines.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** `runs events`. */
export const runsEventsCommand: CommandSpec = {
  usage: "errand runs events <runId> [--json]",
  description: [
    "Prints the run's log: one line per event, or with --json the events as one JSON",
    "array — the file `errand runs fold --from-file` reads.",
  ].join("\n"),
  positionals: [{ name: "runId", description: "the run" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const runId = args.positional(0, "runId");
    const events = await withErrand(args, io, async (errand) => {
      const log: RunEvent[] = [];
      for await (const event of errand.events(runId)) log.push(event);
      return log;
    });
    if (args.flag("json")) writeJson(io, events);
    else writeLines(io, events.map(eventLine));
    return EXIT.ok;
  },
};
