/**
 * The BullMQ queues a reaper looks at: the ones it was told, or else every
 * queue in the registry, opened on first use under the engine's BullMQ prefix.
 */
import type { Logger } from "@errand/runtime";
import { Queue } from "bullmq";
import { logBullErrors } from "../bull-errors.js";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import { readQueueRegistrations } from "../registry.js";

/** The queues of one reaper. */
export interface ReaperQueues {
  /** The names of the queues to look at now. */
  names(): Promise<string[]>;
  /** The queue `name`, opened on first use. */
  queue(name: string): Queue;
  /** Closes the queues (not the connection). */
  close(): Promise<void>;
}

/**
 * Queues on `connection` under `keys.bullmqPrefix`, their errors logged
 * through `logger`; `fixed` names them once and for all.
 */
export function createReaperQueues(
  connection: RedisConnection,
  keys: EngineKeys,
  logger: Logger,
  fixed?: readonly string[],
): ReaperQueues {
  const opened = new Map<string, Queue>();
  return {
    async names() {
      if (fixed !== undefined) return [...fixed];
      return (await readQueueRegistrations(connection, keys)).map(({ queue }) => queue);
    },
    queue(name) {
      let queue = opened.get(name);
      if (!queue) {
        queue = new Queue(name, { connection, prefix: keys.bullmqPrefix });
        logBullErrors(queue, logger, `queue ${name}`);
        opened.set(name, queue);
      }
      return queue;
    },
    async close() {
      await Promise.all([...opened.values()].map((queue) => queue.close()));
      opened.clear();
    },
  };
}
