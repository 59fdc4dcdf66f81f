/**
 * `errand eval sets save <name>`: saves a named run set, resolved to its
 * runIds now, which `errand eval run --set <name>` evaluates every time
 * (docs/guide/evaluations.md#saved-run-sets).
 */
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { RUN_SELECTION_OPTIONS, runSelectionOf } from "../evaluation-runs-args.js";
import { evaluationSetLines } from "../evaluation-set-lines.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** `eval sets save`. */
export const evalSetSaveCommand: CommandSpec = {
  usage:
    "errand eval sets save <name> [--run <runId>… | [--from-agent <name>] [--status <status>] [--since <time>] [--until <time>] [--metadata key=value]… [--limit N]] [--replace] [--json]",
  description: [
    "Saves the runs under <name>: each --run, or the settled runs matching --from-agent,",
    "--status, --since, --until (ISO-8601) and --metadata, newest --limit (default 100),",
    "resolved to their runIds now. errand eval run --set <name> then takes those runs, every",
    "time. A name already saved is refused unless --replace.",
  ].join("\n"),
  positionals: [{ name: "name", description: "the set's name (letters, digits, . _ - :)" }],
  options: {
    ...RUN_SELECTION_OPTIONS,
    replace: { type: "boolean", description: "save over a set of that name" },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const name = args.positional(0, "name");
    const runs = runSelectionOf("eval sets save", args);
    const set = await withErrand(args, io, (errand) =>
      errand.evaluations.sets.save({ name, runs, replace: args.flag("replace") }),
    );
    if (args.flag("json")) writeJson(io, set);
    else writeLines(io, evaluationSetLines(set));
    return EXIT.ok;
  },
};
