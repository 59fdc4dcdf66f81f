/**
 * `errand runs answer <runId|token> --json '<answer>'`: answers the waitpoint
 * a run waits on (docs/architecture/tool-results.md#waitpoints). Given a runId, the run's one open
 * waitpoint is answered; given a token, that waitpoint.
 */
import { ErrandError } from "@errand/core";
import { isRunId } from "@errand/core/ops";
import type { Errand } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { readJsonArgument } from "../files.js";
import { writeLines } from "../output.js";

/** Who answers when `--by` is not given. */
const DEFAULT_ANSWERED_BY = "errand runs answer";

/** The token `target` names: itself, or the one open waitpoint of the run it is. */
async function tokenOf(errand: Errand, target: string): Promise<string> {
  if (!isRunId(target)) return target;
  const { items } = await errand.waitpoints.list({ runId: target });
  const [only] = items;
  if (only === undefined) {
    throw new ErrandError("not_found", `run ${target} waits on no waitpoint`, {
      details: { runId: target },
    });
  }
  if (items.length > 1) {
    throw new ErrandError(
      "invalid_spec",
      `run ${target} waits on ${items.length} waitpoints: answer one by its token (errand runs waiting)`,
    );
  }
  return only.token;
}

/** `runs answer`. */
export const runsAnswerCommand: CommandSpec = {
  usage: "errand runs answer <runId|token> --json <answer> [--by <who>]",
  description: [
    "Answers the waitpoint a run waits on: the run resumes on a worker and the waiting",
    "tool call answers with it. <answer> is JSON (or @file); it must match the",
    "waitpoint's answer schema, else it is refused with the issues and the run keeps",
    "waiting. A waitpoint takes one answer: a second one is refused.",
  ].join("\n"),
  positionals: [{ name: "runId|token", description: "the run, or the waitpoint's token" }],
  options: {
    json: { type: "string", value: "<answer>", description: "the answer, as JSON or @file" },
    by: {
      type: "string",
      value: "<who>",
      description: `who answers (default "${DEFAULT_ANSWERED_BY}")`,
    },
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const target = args.positional(0, "runId|token");
    const answer = await readJsonArgument(io, args.requiredString("json"), "--json");
    const answeredBy = args.string("by") ?? DEFAULT_ANSWERED_BY;
    const completed = await withErrand(args, io, async (errand) =>
      errand.waitpoints.complete(await tokenOf(errand, target), answer, { answeredBy }),
    );
    writeLines(io, [`${completed.runId}: answered ${completed.token} (the run resumes)`]);
    return EXIT.ok;
  },
};
