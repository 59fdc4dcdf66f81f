/**
 * The recorded runs an evaluation or a saved run set takes, as `errand eval
 * run` and `errand eval sets save` read them from their options: `--run`
 * ids, or a filter (`--from-agent`, `--status`, `--since`, `--until`,
 * `--metadata`, `--limit`).
 */
import type { RunFilter } from "@errand/engine";
import { type ParsedArgs, usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";

const STATUSES = ["succeeded", "failed", "cancelled"] as const;

/** The option `name`, which must be one of `values` when given. */
export function oneOf<T extends string>(
  command: string,
  args: ParsedArgs,
  name: string,
  values: readonly T[],
): T | undefined {
  const value = args.string(name);
  if (value === undefined || (values as readonly string[]).includes(value))
    return value as T | undefined;
  throw usageError(
    `${command}: --${name} must be one of ${values.join(", ")}, not ${JSON.stringify(value)}`,
  );
}

function metadataOf(command: string, args: ParsedArgs): Record<string, string> | undefined {
  const pairs = args.strings("metadata");
  if (pairs.length === 0) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1)
        throw usageError(`${command}: --metadata takes key=value, not ${JSON.stringify(pair)}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** The runs asked for: `--run` ids, or a filter from the other options. */
export function runSelectionOf(command: string, args: ParsedArgs): string[] | RunFilter {
  const runIds = args.strings("run");
  if (runIds.length > 0) return runIds;
  const agent = args.string("from-agent");
  const status = oneOf(command, args, "status", STATUSES);
  const since = args.string("since");
  const until = args.string("until");
  const metadata = metadataOf(command, args);
  const limit = args.integer("limit", { min: 1, max: 1000 }, 100);
  return {
    limit,
    ...(agent === undefined ? {} : { agent }),
    ...(status === undefined ? {} : { status }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** The options {@link runSelectionOf} reads. */
export const RUN_SELECTION_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  run: {
    type: "string",
    multiple: true,
    value: "<runId>",
    description: "a recorded run, by id",
  },
  "from-agent": { type: "string", value: "<name>", description: "the runs of this agent" },
  status: {
    type: "string",
    value: "<status>",
    description: `the runs that ended so: ${STATUSES.join(", ")}`,
  },
  since: {
    type: "string",
    value: "<time>",
    description: "the runs created at or after this time",
  },
  until: { type: "string", value: "<time>", description: "the runs created before this time" },
  metadata: {
    type: "string",
    multiple: true,
    value: "key=value",
    description: "the runs fired with this label",
  },
  limit: {
    type: "string",
    value: "<N>",
    description: "the most runs a filter takes (default 100, at most 1000)",
  },
};
