/**
 * How many shards the CLI worker's queue has, and which it takes from:
 * `--queue-shards` (else `ERRAND_QUEUE_SHARDS`, else the engine's default, 1)
 * and `--take-queue-shards` (default all). Producers (`fire`, parents) follow
 * the registry, so only workers are told (docs/architecture/redis-layout.md#queue-shards).
 */
import { MAX_QUEUE_SHARDS } from "@errand/engine/ops";
import { type ParsedArgs, wholeNumber, wholeNumberOption } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import type { CliIO } from "./io.js";

/** The variable read when `--queue-shards` is not given. */
export const QUEUE_SHARDS_VARIABLE = "ERRAND_QUEUE_SHARDS";

/** `--queue-shards` and `--take-queue-shards`, for the worker. */
export const QUEUE_SHARDS_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "queue-shards": {
    type: "string",
    value: "<N>",
    description: `how many BullMQ queues (shards) its queue is spread over, 1 … ${MAX_QUEUE_SHARDS}: on a Redis Cluster, its number of masters (default: ${QUEUE_SHARDS_VARIABLE}, else 1)`,
  },
  "take-queue-shards": {
    type: "string",
    value: "<i,j,…>",
    description:
      "the shards it takes runs from, one blocking Redis connection each (default all); every shard needs a worker",
  },
};

/** `{ queueShards, takeQueueShards }` as given, else `{}`: spread it into the worker's options. */
export function queueShardsOption(
  args: ParsedArgs,
  io: CliIO,
): { queueShards?: number; takeQueueShards?: number[] } {
  const queueShards = wholeNumberOption(args, io.env, {
    name: "queue-shards",
    variable: QUEUE_SHARDS_VARIABLE,
    min: 1,
    max: MAX_QUEUE_SHARDS,
  });
  const take = args.string("take-queue-shards");
  const takeQueueShards = take
    ?.split(",")
    .map((part) => wholeNumber(part, "--take-queue-shards", 0, (queueShards ?? 1) - 1));
  return {
    ...(queueShards === undefined ? {} : { queueShards }),
    ...(takeQueueShards === undefined ? {} : { takeQueueShards }),
  };
}
