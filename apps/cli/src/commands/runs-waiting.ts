/**
 * `errand runs waiting`: the waitpoints waiting for an answer, oldest first.
 */
import type { WaitingWaitpoint } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { nextPageCommand } from "../next-page.js";
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

/** The options of the next page's command: the page size and the connection, as given. */
const REPEATED_OPTIONS = ["limit", "prefix", "redis"] as const;

/** `runs waiting`. */
export const runsWaitingCommand: CommandSpec = {
  usage: "errand runs waiting [--limit N] [--cursor <cursor>] [--json]",
  description: [
    "Lists the runs waiting for an answer from a person (waitpoints), oldest first: the",
    "question, the answer schema, the timeout and the command that answers. --json",
    "prints { items: [{ token, runId, agent, question, answerSchema?, createdAt,",
    "timeoutAt? }], count, hasMore, nextCursor? }. Pass --cursor the nextCursor of the",
    "previous page for the next one; the text ends with that command (more: …).",
  ].join("\n"),
  positionals: [],
  options: {
    limit: {
      type: "string",
      value: "<N>",
      description: "waitpoints per page (default 100, at most 500)",
    },
    cursor: { type: "string", value: "<cursor>", description: "the next page's cursor" },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const limit = args.integer("limit", { min: 1, max: 500 }, 100);
    const cursor = args.string("cursor");
    const waiting = await withErrand(args, io, (errand) =>
      errand.waitpoints.list({ limit, ...(cursor === undefined ? {} : { cursor }) }),
    );
    if (args.flag("json")) {
      writeJson(io, waiting);
      return EXIT.ok;
    }
    const more =
      waiting.nextCursor === undefined
        ? []
        : [
            "",
            `more: ${nextPageCommand(args, ["errand", "runs", "waiting"], REPEATED_OPTIONS, waiting.nextCursor)}`,
          ];
    if (waiting.count === 0 && more.length === 0) writeLines(io, ["no run waits for an answer"]);
    else writeLines(io, [...waiting.items.flatMap(waitingLines), ...more]);
    return EXIT.ok;
  },
};
