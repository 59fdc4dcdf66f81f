/**
 * `errand eval export <evaluationId>`: an evaluation as JSON or JUnit XML
 * (for CI), on stdout or into a file.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { evaluationJUnit } from "@errand/engine";
import { usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { jsonText } from "../output.js";
import { requireEvaluation } from "./eval-show.js";

/** `eval export`. */
export const evalExportCommand: CommandSpec = {
  usage: "errand eval export <evaluationId> [--format json|junit] [--changed-fails] [--out <file>]",
  description: [
    "Writes an evaluation as JSON (default: the record, changed cases first) or as JUnit XML:",
    "a testcase per recorded run, a failure for each case whose candidate did not succeed",
    "(and with --changed-fails for each changed case too), scores as properties. On stdout,",
    "or into --out.",
  ].join("\n"),
  positionals: [{ name: "evaluationId", description: "the evaluation" }],
  options: {
    format: { type: "string", value: "json|junit", description: "the format (default json)" },
    "changed-fails": { type: "boolean", description: "JUnit: a changed case is a failure too" },
    out: { type: "string", value: "<file>", description: "write here instead of stdout" },
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const evaluationId = args.positional(0, "evaluationId");
    const format = args.string("format") ?? "json";
    if (format !== "json" && format !== "junit") {
      throw usageError(
        `eval export: --format must be json or junit, not ${JSON.stringify(format)}`,
      );
    }
    const evaluation = await withErrand(args, io, (errand) =>
      requireEvaluation(errand, evaluationId),
    );
    const text =
      format === "junit"
        ? evaluationJUnit(evaluation, { changedFails: args.flag("changed-fails") })
        : jsonText(evaluation);
    const out = args.string("out");
    if (out === undefined) io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    else await writeFile(resolve(io.cwd, out), text);
    return EXIT.ok;
  },
};
