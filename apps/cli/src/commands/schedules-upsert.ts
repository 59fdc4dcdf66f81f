/**
 * `errand schedules upsert <id>`: creates or replaces a schedule. The command
 * only gathers the spec; every check (the cron expression, the time zone,
 * the interval, the agent and its input schema) is `errand.schedules.upsert`'s,
 * which refuses with a coded error before writing anything.
 */
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { readInputArgument } from "../files.js";
import { metadataOption, parseMetadata } from "../metadata-option.js";
import { writeJson, writeLines } from "../output.js";
import { describeSchedule } from "./schedules-list.js";

/** `schedules upsert`. */
export const schedulesUpsertCommand: CommandSpec = {
  usage:
    "errand schedules upsert <id> --agent <name> (--cron <expr> [--timezone <zone>] | --every-ms <ms>) [--input <json|@file>] [--metadata key=value]... [--overlap skip|allow|cancel-previous] [--catch-up none|last|all] [--json]",
  description: [
    "Creates the schedule, or replaces the one of that id (a paused one stays paused).",
    "Each tick fires one run of the agent with the input, exactly once across every",
    "worker; --metadata labels each of those runs (repeat it for more labels), beside",
    "errand.schedule and errand.tick. Refused with nothing written: a bad cron",
    "expression or time zone, an interval under 1000 ms, an unknown agent, an input its",
    "schema refuses. With --json it prints the schedule as `list` shows it.",
  ].join("\n"),
  positionals: [{ name: "id", description: "the schedule's id" }],
  options: {
    agent: { type: "string", value: "<name>", description: "the agent each tick fires" },
    input: {
      type: "string",
      value: "<json|@file>",
      description: "the input of each run, JSON or @file (default: null)",
    },
    metadata: metadataOption("a label each run carries (in its run-queued event)"),
    cron: { type: "string", value: "<expr>", description: "a cron expression (5 or 6 fields)" },
    timezone: {
      type: "string",
      value: "<zone>",
      description: "the IANA time zone of --cron (default: UTC)",
    },
    "every-ms": {
      type: "string",
      value: "<ms>",
      description: "or an interval, in ms (at least 1000)",
    },
    overlap: {
      type: "string",
      value: "<policy>",
      description: "when the previous run still runs: skip (default), allow, cancel-previous",
    },
    "catch-up": {
      type: "string",
      value: "<policy>",
      description: "what missed ticks fire: none, last (default), all",
    },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const id = args.positional(0, "id");
    const inputText = args.string("input");
    const everyMs = args.string("every-ms");
    const metadata = parseMetadata("schedules upsert", args.strings("metadata"));
    const spec: Record<string, unknown> = {
      id,
      agent: args.requiredString("agent"),
      input: inputText === undefined ? null : await readInputArgument(io, inputText, "--input"),
      cron: args.string("cron"),
      timezone: args.string("timezone"),
      everyMs: everyMs === undefined ? undefined : Number(everyMs),
      overlap: args.string("overlap"),
      catchUp: args.string("catch-up"),
      metadata: Object.keys(metadata).length === 0 ? undefined : metadata,
    };
    const defined = Object.fromEntries(
      Object.entries(spec).filter(([, value]) => value !== undefined),
    );
    const schedule = await withErrand(args, io, (errand) => errand.schedules.upsert(defined));
    if (args.flag("json")) writeJson(io, schedule);
    else writeLines(io, describeSchedule(schedule));
    return EXIT.ok;
  },
};
