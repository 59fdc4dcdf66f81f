/**
 * The Redis keys of flow control (docs/architecture/redis-layout.md): concurrency
 * leases, fair queues and provider rate limits. Every key carries the one
 * hash tag `{flow}`, so a run's leases of its agent and of its key are taken
 * in one script on one Cluster slot.
 */

/** The flow-control keys under one prefix. */
export interface FlowKeys {
  /** The runs of `agent` holding a slot: ZSET, member runId, score when its lease lapses (ms). */
  agentLeases(agent: string): string;
  /** The runs of concurrency key `key` holding a slot: ZSET, as {@link agentLeases}. */
  keyLeases(key: string): string;
  /** The runs of `key` fired and not yet started: ZSET, member runId, score when fired (ms). */
  fairQueue(key: string): string;
  /** The token buckets of a provider key: HASH `requests`, `tokens`, `at` (ms). */
  providerBucket(providerKey: string): string;
  /** A provider key paused by a 429: STRING, its TTL the pause. */
  providerPause(providerKey: string): string;
}

/** The flow-control keys under `prefix` (the store's, e.g. `errand`). */
export function flowKeys(prefix: string): FlowKeys {
  const base = `${prefix}:{flow}`;
  return {
    agentLeases: (agent) => `${base}:lease:agent:${agent}`,
    keyLeases: (key) => `${base}:lease:key:${key}`,
    fairQueue: (key) => `${base}:fair:${key}`,
    providerBucket: (providerKey) => `${base}:rate:${providerKey}`,
    providerPause: (providerKey) => `${base}:pause:${providerKey}`,
  };
}
