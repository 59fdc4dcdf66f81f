/**
 * `errand runs fold --from-file <events.json>`: folds a saved log offline and
 * prints its `RunResult` — the same bytes the collector stores.
 */
import { foldRun, isErrandError, RunEvent, settleRun } from "@errand/core";
import { usageError } from "../args.js";
import { type CommandSpec, JSON_OPTION } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { parseJsonText, readUserFile } from "../files.js";
import { writeJson } from "../output.js";

/** The events of a saved log, each checked against `RunEvent`. */
function parseLog(raw: unknown, path: string): RunEvent[] {
  if (!Array.isArray(raw)) throw usageError(`${path} must hold a JSON array of events`);
  return raw.map((event, index) => {
    const parsed = RunEvent.safeParse(event);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw usageError(`${path}: event ${index + 1} is not a valid event: ${where}${issue?.message}`);
  });
}

/** `runs fold`. */
export const runsFoldCommand: CommandSpec = {
  usage: "errand runs fold --from-file <events.json>",
  description: [
    "Reads a run's log saved as a JSON array of events (what `errand runs events --json`",
    "prints), folds it and prints the run's RunResult as one line of JSON: exactly the",
    "bytes the collector stores for the run. Needs no Redis. A log that has not settled",
    "prints nothing and exits 1.",
  ].join("\n"),
  options: {
    "from-file": { type: "string", value: "<events.json>", description: "the saved log" },
    ...JSON_OPTION,
  },
  async run(args, io) {
    const path = args.requiredString("from-file");
    const events = parseLog(parseJsonText(await readUserFile(io, path, "--from-file"), path), path);
    let result: ReturnType<typeof settleRun>;
    try {
      result = settleRun(foldRun(events));
    } catch (error) {
      if (isErrandError(error)) throw usageError(`${path}: ${error.message}`, error);
      throw error;
    }
    if (result === undefined) {
      const last = events.at(-1);
      io.stderr.write(
        `errand: ${path}: the log has not settled (last event: ${last ? `${last.seq} ${last.type}` : "none"})\n`,
      );
      return EXIT.failure;
    }
    writeJson(io, result);
    return EXIT.ok;
  },
};
