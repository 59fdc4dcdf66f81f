/**
 * `errand runs waiting`: the waitpoints waiting for an answer, oldest first.
 */
import type { WaitingWaitpoint } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { jsonText, writeJson, writeLines } from "../output.js";

function waitingLines(waitpoint: WaitingWaitpoint): string[] {
  const until = waitpoint.timeoutAt === undefined ? "" : ` · times out ${waitpoint.timeoutAt}`;
  const schema =
    waitpoint.answerSchema === undefined
      ? []
      : [`  answer schema: ${jsonText(waitpoint.answerSchema)}`];
  return [
    `${waitpoint.runId}  ${waitpoint.agent}  since ${waitpoint.createdAt}${until}`,
    `  asks: ${waitpoint.question}`,
    ...schema,
    `  answer: errand runs answer ${waitpoint.token} --json '<answer>'`,
  ];
}

/** `runs waiting`. */
export const runsWaitingCommand: CommandSpec = {
  usage: "errand runs waiting [--json]",
  description: [
    "Lists the runs waiting for an answer from a person (waitpoints), oldest first: the",
    "question, the answer schema, the timeout and the command that answers. --json",
    "prints { items: [{ token, runId, agent, question, answerSchema?, createdAt,",
    "timeoutAt? }], count, hasMore }.",
  ].join("\n"),
  positionals: [],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const waiting = await withErrand(args, io, (errand) => errand.waitpoints.list());
    if (args.flag("json")) writeJson(io, waiting);
    else if (waiting.count === 0) writeLines(io, ["no run waits for an answer"]);
    else writeLines(io, waiting.items.flatMap(waitingLines));
    return EXIT.ok;
  },
};
