/**
 * Keys and names the engine adds to the store's layout: the BullMQ prefix,
 * the registry of queues and agents, worker heartbeats, the cancel channel,
 * each run's children and the runIds its `spawn_agents` calls claimed, and
 * what the collector keeps: dead letters, deadlines and the run indexes
 * `list` reads. Every per-run and per-shard key carries its shard's hash tag
 * `{sN}` (docs/architecture.md §6). Everything starts with the same prefix
 * as the store's keys.
 */
import { shardOfRunId } from "@errand/core";
import { type StoreKeys, shardTag, storeKeys } from "@errand/store";

/** Every key and name of the engine for one prefix, plus the store's. */
export interface EngineKeys extends StoreKeys {
  /**
   * The BullMQ prefix: `<prefix>:{queue}`. The hash tag keeps every key of a
   * queue in one Redis Cluster slot, as BullMQ's scripts need.
   */
  readonly bullmqPrefix: string;
  /** Registered queues: HASH, field queue name, value JSON `QueueRegistration`. */
  readonly queueRegistry: string;
  /** How each queue runs one agent: HASH, field queue name, value JSON `AgentRegistration`. */
  agentRegistry(agent: string): string;
  /** Live workers: HASH, field workerId, value JSON `WorkerHeartbeat`. */
  readonly workers: string;
  /** Pub/sub channel on which a cancel's runId is published to every worker. */
  readonly cancelChannel: string;
  /**
   * The children fired by a run, written when each is fired: ZSET with score
   * 0 and member the child's runId, so that lexicographic order (runIds start
   * with their time) is creation order; in the parent's shard.
   */
  children(runId: string): string;
  /**
   * The runIds a parent chose for the children of each of its `spawn_agents`
   * calls, claimed before they are fired so that a repeated call fires the
   * same runs: HASH, field `<step>:<callId>:<digest of the arguments>`,
   * value JSON array of runIds in item order; in the parent's shard.
   */
  spawnClaims(parentRunId: string): string;
  /** Pub/sub channel announcing that results of a shard were written (wakes waiters). */
  settledChannel(shard: number): string;
  /**
   * Shard stream entries the collectors gave up on: STREAM, fields entryId,
   * error, deliveries, consumer, fields (the original entry's fields as JSON).
   */
  deadLetters(shard: number): string;
  /** Runs of a shard with a deadline not yet settled: ZSET, score deadline (ms), member runId. */
  deadlines(shard: number): string;
  /**
   * Every run of a shard, for `list`: ZSET with score 0, member
   * `<createdAt ms, 15 digits>:<runId>`, so that lexicographic order is creation order.
   */
  runIndex(shard: number): string;
  /** The runs of a shard by status, members as in {@link runIndex}: `active` (queued or running) or a settled status. */
  runIndexByStatus(shard: number, status: "active" | "succeeded" | "failed" | "cancelled"): string;
  /** The runs of a shard by agent, members as in {@link runIndex}. */
  runIndexByAgent(shard: number, agent: string): string;
}

/** The engine's keys for `prefix` (default `errand`). */
export function engineKeys(prefix?: string): EngineKeys {
  const store = storeKeys(prefix);
  const base = store.prefix;
  return {
    ...store,
    bullmqPrefix: `${base}:{queue}`,
    queueRegistry: `${base}:registry:queues`,
    agentRegistry: (agent) => `${base}:registry:agent:${agent}`,
    workers: `${base}:workers`,
    cancelChannel: `${base}:cancel`,
    children: (runId) => `${base}:${shardTag(shardOfRunId(runId))}:children:${runId}`,
    spawnClaims: (parentRunId) =>
      `${base}:${shardTag(shardOfRunId(parentRunId))}:spawned:${parentRunId}`,
    settledChannel: (shard) => `${base}:${shardTag(shard)}:settled`,
    deadLetters: (shard) => `${base}:${shardTag(shard)}:dead`,
    deadlines: (shard) => `${base}:${shardTag(shard)}:deadlines`,
    runIndex: (shard) => `${base}:${shardTag(shard)}:index:runs`,
    runIndexByStatus: (shard, status) => `${base}:${shardTag(shard)}:index:status:${status}`,
    runIndexByAgent: (shard, agent) => `${base}:${shardTag(shard)}:index:agent:${agent}`,
  };
}
