/**
 * How the CLI's processes write to Redis:
 * - `--durability`, else `ERRAND_DURABILITY`, else the engine's default
 *   (`acknowledged`). `replicated` makes a run's settling and output appends
 *   wait for one Redis replica (the worker and the collector, and `errand up`
 *   running both), and a fire answer once a replica has its runs (`errand
 *   fire`, `errand runs rerun`, `errand eval run --fleet`, the API server,
 *   the MCP server, and the worker's `spawn_agents` and schedule ticks)
 *   (docs/architecture/redis-layout.md#durability).
 * - `--log-entries`, else `ERRAND_LOG_ENTRIES`, else the engine's default
 *   (`per-append`). `per-event` writes the log shape versions before one
 *   entry per append read, for the first step of that rolling upgrade
 *   (docs/architecture/redis-layout.md#upgrading-to-one-log-entry-per-append).
 * - `--run-key-expiry`, else `ERRAND_RUN_KEY_EXPIRY`, else the engine's
 *   default (`flagged`). `all` gives a settled run's blobs and children their
 *   expiry whether its head flags them or not, for the first step of that
 *   rolling upgrade; the API server, the dashboard and the MCP server,
 *   which settle the runs they cancel, take it too
 *   (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
 * - `--call-args`, else `ERRAND_CALL_ARGS`, else the engine's default (`cut`:
 *   a tool call's arguments over the inline limits logged as a blob and a
 *   preview). `whole` writes them whole, for the first step of that rolling
 *   upgrade of workers (docs/architecture/tool-results.md#call-arguments-kept-as-blobs).
 */
import type { Durability, LogEntries, RunKeyExpiry } from "@errand/store";
import { type ParsedArgs, usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import type { CliIO } from "./io.js";

/** The variable read when `--durability` is not given. */
export const DURABILITY_VARIABLE = "ERRAND_DURABILITY";

/** The variable read when `--log-entries` is not given. */
export const LOG_ENTRIES_VARIABLE = "ERRAND_LOG_ENTRIES";

/** The variable read when `--run-key-expiry` is not given. */
export const RUN_KEY_EXPIRY_VARIABLE = "ERRAND_RUN_KEY_EXPIRY";

/** The variable read when `--call-args` is not given. */
export const CALL_ARGS_VARIABLE = "ERRAND_CALL_ARGS";

const DURABILITIES: readonly Durability[] = ["acknowledged", "replicated"];
const LOG_ENTRIES: readonly LogEntries[] = ["per-append", "per-event"];
const RUN_KEY_EXPIRIES: readonly RunKeyExpiry[] = ["flagged", "all"];
const CALL_ARGS = ["cut", "whole"] as const;

/** `--durability`, for the commands that fire runs or append to run logs. */
export const DURABILITY_OPTION: Readonly<Record<string, OptionSpec>> = {
  durability: {
    type: "string",
    value: "<acknowledged|replicated>",
    description: `when a fire or a run's settling append counts as done: once Redis has it (acknowledged, default) or once a replica has it too (replicated) (default: ${DURABILITY_VARIABLE})`,
  },
};

/** `--log-entries`, for the processes that append to run logs during a rolling upgrade. */
export const LOG_ENTRIES_OPTION: Readonly<Record<string, OptionSpec>> = {
  "log-entries": {
    type: "string",
    value: "<per-append|per-event>",
    description: `how an append of several events is written to a run's log: one entry (per-append, default) or one entry per event, with run jobs naming the run alone (per-event), which older versions need while they run (default: ${LOG_ENTRIES_VARIABLE})`,
  },
};

/** `--run-key-expiry`, for the processes that settle runs during a rolling upgrade. */
export const RUN_KEY_EXPIRY_OPTION: Readonly<Record<string, OptionSpec>> = {
  "run-key-expiry": {
    type: "string",
    value: "<flagged|all>",
    description: `which of a settled run's blobs and children get its expiry: those its head flags (flagged, default) or every one (all), which older versions need while they run (default: ${RUN_KEY_EXPIRY_VARIABLE})`,
  },
};

/** `--call-args`, for workers during the rolling upgrade that cuts large call arguments. */
export const CALL_ARGS_OPTION: Readonly<Record<string, OptionSpec>> = {
  "call-args": {
    type: "string",
    value: "<cut|whole>",
    description: `how a tool call's arguments over the inline limits are logged: as a blob and a preview (cut, default) or whole (whole), which older workers need while they run (default: ${CALL_ARGS_VARIABLE})`,
  },
};

/** `{ durability }` from `--durability` or the environment, else `{}`: spread it into engine options. */
export function durabilityOption(args: ParsedArgs, io: CliIO): { durability?: Durability } {
  const durability = readChoice(args, io, "durability", DURABILITY_VARIABLE, DURABILITIES);
  return durability === undefined ? {} : { durability };
}

/** `{ logEntries }` from `--log-entries` or the environment, else `{}`: spread it into engine options. */
export function logEntriesOption(args: ParsedArgs, io: CliIO): { logEntries?: LogEntries } {
  const logEntries = readChoice(args, io, "log-entries", LOG_ENTRIES_VARIABLE, LOG_ENTRIES);
  return logEntries === undefined ? {} : { logEntries };
}

/** `{ runKeyExpiry }` from `--run-key-expiry` or the environment, else `{}`: spread it into engine options. */
export function runKeyExpiryOption(args: ParsedArgs, io: CliIO): { runKeyExpiry?: RunKeyExpiry } {
  const runKeyExpiry = readChoice(
    args,
    io,
    "run-key-expiry",
    RUN_KEY_EXPIRY_VARIABLE,
    RUN_KEY_EXPIRIES,
  );
  return runKeyExpiry === undefined ? {} : { runKeyExpiry };
}

/** `{ cutLargeCallArgs }` from `--call-args` or the environment, else `{}`: spread it into worker options. */
export function callArgsOption(args: ParsedArgs, io: CliIO): { cutLargeCallArgs?: boolean } {
  const callArgs = readChoice(args, io, "call-args", CALL_ARGS_VARIABLE, CALL_ARGS);
  return callArgs === undefined ? {} : { cutLargeCallArgs: callArgs === "cut" };
}

/** The flag's value, else the variable's, one of `choices`; undefined when neither is set. */
function readChoice<Choice extends string>(
  args: ParsedArgs,
  io: CliIO,
  flag: string,
  variable: string,
  choices: readonly Choice[],
): Choice | undefined {
  const text = args.string(flag) ?? io.env[variable];
  if (text === undefined || text === "") return undefined;
  const choice = choices.find((known) => known === text);
  if (choice === undefined) {
    throw usageError(
      `--${flag} (or ${variable}) is ${choices.join(" or ")}, not ${JSON.stringify(text)}`,
    );
  }
  return choice;
}
