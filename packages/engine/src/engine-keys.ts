/**
 * Keys and names the engine adds to the store's layout: the BullMQ prefix,
 * the agent registry, worker heartbeats, the cancel channel, and each run's
 * children. Everything starts with the same prefix as the store's keys.
 */
import { shardOfRunId } from "@errand/core";
import { type StoreKeys, shardTag, storeKeys } from "@errand/store";

/** The BullMQ queue runs go to when an agent names none. */
export const DEFAULT_QUEUE = "runs";

/** Every key and name of the engine for one prefix, plus the store's. */
export interface EngineKeys extends StoreKeys {
  /**
   * The BullMQ prefix: `<prefix>:{queue}`. The hash tag keeps every key of a
   * queue in one Redis Cluster slot, as BullMQ's scripts need.
   */
  readonly bullmqPrefix: string;
  /** Registered agents: HASH, field agent name, value JSON `AgentRegistration`. */
  readonly agents: string;
  /** Live workers: HASH, field workerId, value JSON `WorkerHeartbeat`. */
  readonly workers: string;
  /** Pub/sub channel on which a cancel's runId is published to every worker. */
  readonly cancelChannel: string;
  /** The children fired by a run: SET of runIds, in the parent's shard. */
  children(runId: string): string;
  /** Pub/sub channel announcing that results of a shard were written (wakes waiters). */
  settledChannel(shard: number): string;
}

/** The engine's keys for `prefix` (default `errand`). */
export function engineKeys(prefix?: string): EngineKeys {
  const store = storeKeys(prefix);
  const base = store.prefix;
  return {
    ...store,
    bullmqPrefix: `${base}:{queue}`,
    agents: `${base}:agents`,
    workers: `${base}:workers`,
    cancelChannel: `${base}:cancel`,
    children: (runId) => `${base}:${shardTag(shardOfRunId(runId))}:children:${runId}`,
    settledChannel: (shard) => `${base}:${shardTag(shard)}:settled`,
  };
}
