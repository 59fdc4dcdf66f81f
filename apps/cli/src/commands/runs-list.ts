/**
 * `errand runs list`: a page of runs, newest first, optionally filtered.
 */
import { usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { nextPageCommand } from "../next-page.js";
import { writeJson, writeLines } from "../output.js";
import { formatTable } from "../table.js";

const STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
type Status = (typeof STATUSES)[number];

function isStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}

/** The options of the next page's command: the filters and the connection, as given. */
const REPEATED_OPTIONS = [
  "status",
  "agent",
  "parent",
  "tenant",
  "limit",
  "prefix",
  "redis",
] as const;

/** `runs list`. */
export const runsListCommand: CommandSpec = {
  usage:
    "errand runs list [--status <status>] [--agent <name>] [--parent <runId>] [--tenant <tenant>] [--limit N] [--cursor <cursor>] [--json]",
  description: [
    "Lists runs, newest first, as a table, or with --json as { items, count, hasMore,",
    "nextCursor? }. Pass --cursor the nextCursor of the previous page, with the same",
    "filters, for the next one; the table ends with that command (more: errand runs list …).",
  ].join("\n"),
  options: {
    status: {
      type: "string",
      value: "<status>",
      description: `only runs in this status: ${STATUSES.join(", ")}`,
    },
    agent: { type: "string", value: "<name>", description: "only runs of this agent" },
    parent: { type: "string", value: "<runId>", description: "only the children of this run" },
    tenant: { type: "string", value: "<tenant>", description: "only the runs of this tenant" },
    limit: { type: "string", value: "<N>", description: "runs per page (default 50, at most 500)" },
    cursor: { type: "string", value: "<cursor>", description: "the next page's cursor" },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const status = args.string("status");
    if (status !== undefined && !isStatus(status)) {
      throw usageError(
        `runs list: --status must be one of ${STATUSES.join(", ")}, not ${JSON.stringify(status)}`,
      );
    }
    const limit = args.integer("limit", { min: 1, max: 500 }, 50);
    const agent = args.string("agent");
    const parentRunId = args.string("parent");
    const tenant = args.string("tenant");
    const cursor = args.string("cursor");
    const filters = {
      limit,
      ...(status === undefined ? {} : { status }),
      ...(agent === undefined ? {} : { agent }),
      ...(parentRunId === undefined ? {} : { parentRunId }),
      ...(tenant === undefined ? {} : { tenant }),
      ...(cursor === undefined ? {} : { cursor }),
    };
    const page = await withErrand(args, io, (errand) => errand.list(filters));
    if (args.flag("json")) {
      writeJson(io, page);
      return EXIT.ok;
    }
    const rows = page.items.map((run) => [
      run.runId,
      run.agent,
      run.status,
      run.createdAt,
      run.settledAt ?? "",
      run.error?.code ?? "",
    ]);
    const more =
      page.nextCursor === undefined
        ? []
        : [
            "",
            `more: ${nextPageCommand(args, ["errand", "runs", "list"], REPEATED_OPTIONS, page.nextCursor)}`,
          ];
    writeLines(io, [
      ...formatTable([["run", "agent", "status", "created", "settled", "error"], ...rows]),
      ...more,
    ]);
    return EXIT.ok;
  },
};
