/**
 * `errand eval show <evaluationId>`: one evaluation, changed cases first.
 */
import { ErrandError } from "@errand/core";
import type { Errand, Evaluation } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { evaluationLines } from "../evaluation-lines.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** The evaluation `evaluationId`; `not_found` when there is none. */
export async function requireEvaluation(errand: Errand, evaluationId: string): Promise<Evaluation> {
  const evaluation = await errand.evaluations.get(evaluationId);
  if (evaluation !== undefined) return evaluation;
  throw new ErrandError(
    "not_found",
    `there is no evaluation ${evaluationId}: errand eval list shows them`,
  );
}

/** `eval show`. */
export const evalShowCommand: CommandSpec = {
  usage: "errand eval show <evaluationId> [--json]",
  description: [
    "Prints an evaluation: its candidate, totals (cases, changed, failed, cost and tokens",
    "of each side, the mean of each score), then a row per case, changed cases first.",
    "--json prints the whole record: every case with both outputs, scores, diff and tool calls.",
  ].join("\n"),
  positionals: [{ name: "evaluationId", description: "the evaluation" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const evaluationId = args.positional(0, "evaluationId");
    const evaluation = await withErrand(args, io, (errand) =>
      requireEvaluation(errand, evaluationId),
    );
    if (args.flag("json")) writeJson(io, evaluation);
    else writeLines(io, evaluationLines(evaluation));
    return EXIT.ok;
  },
};
