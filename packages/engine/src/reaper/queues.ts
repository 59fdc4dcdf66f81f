/**
 * The queues a reaper looks at: the ones it was told, or else every queue in
 * the registry, each shard opened on first use (`queue-shards.ts`).
 */
import type { Logger } from "@errand/runtime";
import type { EngineKeys } from "../engine-keys.js";
import { readQueueRegistrations } from "../queues/registry.js";
import { createRunQueues, type RunQueues } from "../queues/run-queues.js";
import type { RedisConnection } from "../redis/connection.js";

/** The queues of one reaper. */
export interface ReaperQueues extends RunQueues {
  /** The names of the queues to look at now. */
  names(): Promise<string[]>;
}

/**
 * Queues on `connection`, their errors logged through `logger`; `fixed`
 * names them once and for all.
 */
export function createReaperQueues(
  connection: RedisConnection,
  keys: EngineKeys,
  logger: Logger,
  fixed?: readonly string[],
): ReaperQueues {
  return {
    ...createRunQueues(connection, keys, logger),
    async names() {
      if (fixed !== undefined) return [...fixed];
      return (await readQueueRegistrations(connection, keys)).map(({ queue }) => queue);
    },
  };
}
