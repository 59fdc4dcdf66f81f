/**
 * How durable the appends of the CLI's worker and collector are:
 * `--durability`, else `ERRAND_DURABILITY`, else the engine's default
 * (`acknowledged`). `replicated` makes a run's settling and output appends
 * wait for one Redis replica (docs/architecture/redis-layout.md#durability).
 */
import type { Durability } from "@errand/store";
import { type ParsedArgs, usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import type { CliIO } from "./io.js";

/** The variable read when `--durability` is not given. */
export const DURABILITY_VARIABLE = "ERRAND_DURABILITY";

const DURABILITIES: readonly Durability[] = ["acknowledged", "replicated"];

/** `--durability`, for the commands that append to run logs. */
export const DURABILITY_OPTION: Readonly<Record<string, OptionSpec>> = {
  durability: {
    type: "string",
    value: "<acknowledged|replicated>",
    description: `when a run's settling append counts as done: once Redis has it (acknowledged, default) or once a replica has it too (replicated) (default: ${DURABILITY_VARIABLE})`,
  },
};

/** `{ durability }` from `--durability` or the environment, else `{}`: spread it into engine options. */
export function durabilityOption(args: ParsedArgs, io: CliIO): { durability?: Durability } {
  const text = args.string("durability") ?? io.env[DURABILITY_VARIABLE];
  if (text === undefined || text === "") return {};
  const durability = DURABILITIES.find((known) => known === text);
  if (durability === undefined) {
    throw usageError(
      `--durability (or ${DURABILITY_VARIABLE}) is acknowledged or replicated, not ${JSON.stringify(text)}`,
    );
  }
  return { durability };
}
