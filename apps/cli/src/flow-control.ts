/**
 * The CLI worker's flow control (docs/architecture/flow-control.md#flow-control):
 * `--flow-control <json|@file>`, else `ERRAND_FLOW_CONTROL` (JSON, or
 * `@file`), else none. The JSON is the library's `flowControl` option, checked
 * whole: a bad value is a usage error (exit code 2) naming its path. Give
 * every worker of a fleet the same.
 */
import type { FlowControlOptions } from "@errand/engine";
import { parseFlowControl } from "@errand/engine/ops";
import type { ParsedArgs } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import { readJsonArgument } from "./files.js";
import type { CliIO } from "./io.js";

/** The variable read when `--flow-control` is not given. */
export const FLOW_CONTROL_VARIABLE = "ERRAND_FLOW_CONTROL";

/** `--flow-control`, for the worker. */
export const FLOW_CONTROL_OPTION: Readonly<Record<string, OptionSpec>> = {
  "flow-control": {
    type: "string",
    value: "<json|@file>",
    description: `limits shared by the fleet, as JSON: agentConcurrency, keyConcurrency, providerLimits, leaseMs, recheckMs (default: ${FLOW_CONTROL_VARIABLE})`,
  },
};

/** `{ flowControl }` from `--flow-control` or the environment, else `{}`: spread it into the worker's options. */
export async function flowControlOption(
  args: ParsedArgs,
  io: CliIO,
): Promise<{ flowControl?: FlowControlOptions }> {
  const flag = args.string("flow-control");
  const text = flag ?? io.env[FLOW_CONTROL_VARIABLE];
  if (text === undefined || text === "") return {};
  const what = flag === undefined ? FLOW_CONTROL_VARIABLE : "--flow-control";
  return { flowControl: parseFlowControl(await readJsonArgument(io, text, what), what) };
}
