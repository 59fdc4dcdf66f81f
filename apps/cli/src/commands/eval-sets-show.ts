/**
 * `errand eval sets show <name>`: one saved run set and its runIds.
 */
import { ErrandError } from "@errand/core";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { evaluationSetLines } from "../evaluation-set-lines.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** `eval sets show`. */
export const evalSetShowCommand: CommandSpec = {
  usage: "errand eval sets show <name> [--json]",
  description: "Prints a saved run set: what it was saved from, when, and its runIds.",
  positionals: [{ name: "name", description: "the set" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const name = args.positional(0, "name");
    const set = await withErrand(args, io, async (errand) => {
      const found = await errand.evaluations.sets.get(name);
      if (found !== undefined) return found;
      throw new ErrandError(
        "not_found",
        `there is no saved run set ${name}: errand eval sets list shows them`,
      );
    });
    if (args.flag("json")) writeJson(io, set);
    else writeLines(io, evaluationSetLines(set));
    return EXIT.ok;
  },
};
