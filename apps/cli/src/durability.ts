/**
 * How the CLI's worker and collector write their appends:
 * - `--durability`, else `ERRAND_DURABILITY`, else the engine's default
 *   (`acknowledged`). `replicated` makes a run's settling and output appends
 *   wait for one Redis replica (docs/architecture/redis-layout.md#durability).
 * - `--log-entries`, else `ERRAND_LOG_ENTRIES`, else the engine's default
 *   (`per-append`). `per-event` writes the log shape versions before one
 *   entry per append read, for the first step of that rolling upgrade
 *   (docs/architecture/redis-layout.md#upgrading-to-one-log-entry-per-append).
 */
import type { Durability, LogEntries } from "@errand/store";
import { type ParsedArgs, usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import type { CliIO } from "./io.js";

/** The variable read when `--durability` is not given. */
export const DURABILITY_VARIABLE = "ERRAND_DURABILITY";

/** The variable read when `--log-entries` is not given. */
export const LOG_ENTRIES_VARIABLE = "ERRAND_LOG_ENTRIES";

const DURABILITIES: readonly Durability[] = ["acknowledged", "replicated"];
const LOG_ENTRIES: readonly LogEntries[] = ["per-append", "per-event"];

/** `--durability`, for the commands that append to run logs. */
export const DURABILITY_OPTION: Readonly<Record<string, OptionSpec>> = {
  durability: {
    type: "string",
    value: "<acknowledged|replicated>",
    description: `when a run's settling append counts as done: once Redis has it (acknowledged, default) or once a replica has it too (replicated) (default: ${DURABILITY_VARIABLE})`,
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
