/**
 * `errand eval list`: the evaluations kept in Redis, newest first.
 */
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { evaluationListLines } from "../evaluation-lines.js";
import { EXIT } from "../exit-codes.js";
import { nextPageCommand } from "../next-page.js";
import { writeJson, writeLines } from "../output.js";

/** The options of the next page's command. */
const REPEATED_OPTIONS = ["limit", "prefix", "redis"] as const;

/** `eval list`. */
export const evalListCommand: CommandSpec = {
  usage: "errand eval list [--limit N] [--cursor <cursor>] [--json]",
  description: [
    "Lists evaluations, newest first: candidate, status, cases done, changed and failed.",
    "--json prints { items, count, hasMore, nextCursor? } (each item without its cases).",
  ].join("\n"),
  options: {
    limit: {
      type: "string",
      value: "<N>",
      description: "evaluations per page (default 20, at most 200)",
    },
    cursor: { type: "string", value: "<cursor>", description: "the next page's cursor" },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const limit = args.integer("limit", { min: 1, max: 200 }, 20);
    const cursor = args.string("cursor");
    const listed = await withErrand(args, io, (errand) =>
      errand.evaluations.list({ limit, ...(cursor === undefined ? {} : { cursor }) }),
    );
    if (args.flag("json")) {
      writeJson(io, listed);
      return EXIT.ok;
    }
    const more =
      listed.nextCursor === undefined
        ? []
        : [
            "",
            `more: ${nextPageCommand(args, ["errand", "eval", "list"], REPEATED_OPTIONS, listed.nextCursor)}`,
          ];
    writeLines(io, [...evaluationListLines(listed.items), ...more]);
    return EXIT.ok;
  },
};
