/**
 * The BullMQ queues a reaper looks at: the ones it was told, or else the
 * default queue plus every queue a registered agent names, opened on first
 * use under the engine's BullMQ prefix.
 */
import { Queue } from "bullmq";
import type { RedisConnection } from "../connection.js";
import { DEFAULT_QUEUE, type EngineKeys } from "../engine-keys.js";
import { readAgentRegistration, readAgentRegistrations } from "../registry.js";

/** The queues of one reaper. */
export interface ReaperQueues {
  /** The names of the queues to look at now. */
  names(): Promise<string[]>;
  /** The queue `name`, opened on first use. */
  queue(name: string): Queue;
  /** The queue the runs of `agent` go to. */
  queueOfAgent(agent: string): Promise<string>;
  /** Closes the queues (not the connection). */
  close(): Promise<void>;
}

/** Queues on `connection` under `keys.bullmqPrefix`; `fixed` names them once and for all. */
export function createReaperQueues(
  connection: RedisConnection,
  keys: EngineKeys,
  fixed?: readonly string[],
): ReaperQueues {
  const opened = new Map<string, Queue>();
  return {
    async names() {
      if (fixed !== undefined) return [...fixed];
      const registrations = await readAgentRegistrations(connection, keys);
      const named = [...registrations.values()].map((registration) => registration.queue);
      return [...new Set([DEFAULT_QUEUE, ...named])];
    },
    queue(name) {
      let queue = opened.get(name);
      if (!queue) {
        queue = new Queue(name, { connection, prefix: keys.bullmqPrefix });
        opened.set(name, queue);
      }
      return queue;
    },
    async queueOfAgent(agent) {
      return (await readAgentRegistration(connection, keys, agent))?.queue ?? DEFAULT_QUEUE;
    },
    async close() {
      await Promise.all([...opened.values()].map((queue) => queue.close()));
      opened.clear();
    },
  };
}
