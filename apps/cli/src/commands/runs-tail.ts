/**
 * `errand runs tail <runId>`: a run's log, followed live until it settles.
 */
import { foldRun, isTerminalEventType, type RunEvent, settleRun } from "@errand/core";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { eventLine } from "../event-lines.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** `runs tail`. */
export const runsTailCommand: CommandSpec = {
  usage: "errand runs tail <runId> [--json]",
  description: [
    "Prints the run's events as they are appended, until the run settles: one line per",
    "event, or with --json one JSON event per line. Exits 0 when the run succeeded, 1",
    "when it failed or was cancelled.",
  ].join("\n"),
  positionals: [{ name: "runId", description: "the run" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const runId = args.positional(0, "runId");
    const json = args.flag("json");
    const log: RunEvent[] = [];
    await withErrand(args, io, async (errand) => {
      for await (const event of errand.events(runId, { follow: true })) {
        log.push(event);
        if (json) writeJson(io, event);
        else writeLines(io, [eventLine(event)]);
        if (isTerminalEventType(event.type)) break;
      }
    });
    return settleRun(foldRun(log))?.status === "succeeded" ? EXIT.ok : EXIT.failure;
  },
};
