/**
 * `errand runs tree <runId>`: a run and its descendants, drawn like `tree`.
 */
import { stdoutPaint } from "../colour.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";
import { readRunTree } from "../run-tree.js";
import { treeLines } from "../tree-lines.js";

/** `runs tree`. */
export const runsTreeCommand: CommandSpec = {
  usage: "errand runs tree <runId> [--json]",
  description: [
    "Prints the run and its descendants (its children, their children, …), each under its",
    "parent behind box-drawing branches, in the order they were created (children fired in",
    "the same millisecond in runId order): runId, agent and status, with the error code of",
    "a run that failed or was cancelled. The status is coloured on a",
    "terminal, and plain when piped or when NO_COLOR is set. A child shows once a collector",
    "has indexed it. --json prints one nested document: the run's summary (as in runs list)",
    "with children: [...] the same way down.",
  ].join("\n"),
  positionals: [{ name: "runId", description: "the root of the tree" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const runId = args.positional(0, "runId");
    const tree = await withErrand(args, io, (errand) => readRunTree(errand, runId));
    if (args.flag("json")) writeJson(io, tree);
    else writeLines(io, treeLines(tree, stdoutPaint(io)));
    return EXIT.ok;
  },
};
