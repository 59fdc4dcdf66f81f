/**
 * `errand runs cancel <runId>`: cancels a run (and with --cascade its descendants).
 */
import type { CancelResult } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

function describe(result: CancelResult): string {
  if (!result.requested) return `${result.runId}: already ${result.status}, nothing to cancel`;
  if (result.status === "cancelled") return `${result.runId}: cancelled`;
  return `${result.runId}: cancel requested (${result.status}: the worker holding it stops it)`;
}

/** `runs cancel`. */
export const runsCancelCommand: CommandSpec = {
  usage: "errand runs cancel <runId> [--reason <text>] [--cascade] [--json]",
  description: [
    "Cancels the run: a waiting run is settled cancelled at once, a running one is",
    "stopped by the worker holding it, a settled one is left as it is. With --json it",
    "prints { runId, status, requested, descendants? }.",
  ].join("\n"),
  positionals: [{ name: "runId", description: "the run" }],
  options: {
    reason: { type: "string", value: "<text>", description: "why, kept in the run's log" },
    cascade: { type: "boolean", description: "cancel its descendants too" },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const runId = args.positional(0, "runId");
    const reason = args.string("reason");
    const result = await withErrand(args, io, (errand) =>
      errand.cancel(runId, {
        by: "errand runs cancel",
        cascade: args.flag("cascade"),
        ...(reason === undefined ? {} : { reason }),
      }),
    );
    if (args.flag("json")) writeJson(io, result);
    else writeLines(io, [result, ...(result.descendants ?? [])].map(describe));
    return EXIT.ok;
  },
};
