/**
 * `errand runs rerun`: fires runs again after a fix — the runs named with
 * `--run`, or a page of those the filters match — as `errand.rerun` does
 * (docs/architecture/firing.md#re-runs): one line per source run, a run that
 * cannot be re-run failing alone, exit 1 when any did.
 */
import { MAX_RERUN, type RerunItem, type RerunOptions } from "@errand/engine";
import { usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { DURABILITY_OPTION, durabilityOption } from "../durability.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { nextPageCommand } from "../next-page.js";
import { writeJson, writeLines } from "../output.js";

const STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;

/** The options of the next page's command: the filters, the request and the connection, as given. */
const REPEATED_OPTIONS = [
  "status",
  "agent",
  "limit",
  "version",
  "key",
  "durability",
  "prefix",
  "redis",
] as const;

function describe(item: RerunItem): string {
  if (!item.ok)
    return `${item.sourceRunId}: not re-run (${item.error?.code}: ${item.error?.message})`;
  const again = item.deduplicated ? " (re-run before by this request)" : "";
  return `${item.sourceRunId}: re-run as ${item.runId}${again}`;
}

/** The source runs the arguments name: `--run`s, or the filters. */
function sources(runs: string[], status: string | undefined, agent: string | undefined) {
  if (runs.length > 0) {
    if (status !== undefined || agent !== undefined) {
      throw usageError("runs rerun: give --run, or the filters --status and --agent, not both");
    }
    return { runs };
  }
  if (status === undefined && agent === undefined) {
    throw usageError(
      "runs rerun: name the runs with --run, or filter them with --status or --agent",
    );
  }
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw usageError(
      `runs rerun: --status must be one of ${STATUSES.join(", ")}, not ${JSON.stringify(status)}`,
    );
  }
  return {
    filter: {
      ...(status === undefined ? {} : { status: status as (typeof STATUSES)[number] }),
      ...(agent === undefined ? {} : { agent }),
    },
  };
}

/** `runs rerun`. */
export const runsRerunCommand: CommandSpec = {
  usage:
    "errand runs rerun (--run <runId>… | [--status <status>] [--agent <name>] [--limit N] [--cursor <cursor>]) [--version original|newest|<version>] [--key <key>] [--durability <acknowledged|replicated>] [--json]",
  description: [
    `Fires runs again (at most ${MAX_RERUN} a call): each a new run with its source's agent,`,
    "input, schema and metadata plus rerunOf, on the version that ran unless --version",
    "says otherwise. The same command run again fires nothing twice (it answers with the",
    "runs fired before); --key names a new request. With filters it re-runs a page of the",
    "runs they match and ends with the command for the next page. Exits 1 when a run could",
    "not be re-run. With --json it prints { total, succeeded, failed, results, hasMore,",
    "nextCursor? }. With --durability replicated a re-run is printed once a Redis replica",
    "has it; one no replica confirmed in time is not re-run (redis_unavailable), fired all",
    "the same: the same command again answers that run once a replica has it.",
  ].join("\n"),
  options: {
    run: { type: "string", value: "<runId>", multiple: true, description: "a run to fire again" },
    status: {
      type: "string",
      value: "<status>",
      description: `re-run the runs in this status: ${STATUSES.join(", ")}`,
    },
    agent: { type: "string", value: "<name>", description: "re-run the runs of this agent" },
    limit: {
      type: "string",
      value: "<N>",
      description: `runs re-run by this call, with filters (default and at most ${MAX_RERUN})`,
    },
    cursor: { type: "string", value: "<cursor>", description: "the next page's cursor" },
    version: {
      type: "string",
      value: "<version>",
      description: "original (the version that ran, default), newest, or a version",
    },
    key: { type: "string", value: "<key>", description: "names this re-run request" },
    ...DURABILITY_OPTION,
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const source = sources(args.strings("run"), args.string("status"), args.string("agent"));
    const cursor = args.string("cursor");
    const version = args.string("version");
    const key = args.string("key");
    const options: RerunOptions = {
      ...source,
      ...("filter" in source
        ? { limit: args.integer("limit", { min: 1, max: MAX_RERUN }, MAX_RERUN) }
        : {}),
      ...(cursor === undefined ? {} : { cursor }),
      ...(version === undefined ? {} : { version }),
      ...(key === undefined ? {} : { idempotencyKey: key }),
    };
    const result = await withErrand(
      args,
      io,
      (errand) => errand.rerun(options),
      durabilityOption(args, io),
    );
    if (args.flag("json")) writeJson(io, result);
    else {
      const more =
        result.nextCursor === undefined || !result.hasMore
          ? []
          : [
              "",
              `more: ${nextPageCommand(args, ["errand", "runs", "rerun"], REPEATED_OPTIONS, result.nextCursor)}`,
            ];
      writeLines(io, [
        ...result.results.map(describe),
        `${result.succeeded} re-run, ${result.failed} not`,
        ...more,
      ]);
    }
    return result.failed > 0 ? EXIT.failure : EXIT.ok;
  },
};
