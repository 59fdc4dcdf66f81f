/**
 * `errand eval sets list`: the saved run sets, by name.
 */
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { evaluationSetListLines } from "../evaluation-set-lines.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** `eval sets list`. */
export const evalSetListCommand: CommandSpec = {
  usage: "errand eval sets list [--json]",
  description: [
    "Lists the saved run sets by name: how many runs each holds, what it was saved from.",
    "--json prints each set whole, its runIds included.",
  ].join("\n"),
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const sets = await withErrand(args, io, (errand) => errand.evaluations.sets.list());
    if (args.flag("json")) writeJson(io, sets);
    else writeLines(io, evaluationSetListLines(sets));
    return EXIT.ok;
  },
};
