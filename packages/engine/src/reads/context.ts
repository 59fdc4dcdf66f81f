/** What every client read works with: the store's outcome reads, and more. */
import {
  defineStandingsScript,
  type EventStore,
  type OutcomeReads,
  type SettledWaiter,
} from "@errand/store";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";

/** The shared resources of one client's reads. */
export interface ReadsContext extends OutcomeReads {
  redis: RedisConnection;
  keys: EngineKeys;
  store: EventStore;
  waiter: SettledWaiter;
  /** The shards `list` looks at: 0 … `shards` − 1. */
  shards: number;
}

/**
 * The reads' context over `parts`, with the scripts the reads call defined
 * on `parts.redis`: make it as soon as the connection is opened, before any
 * command is sent on it.
 */
export function createReadsContext(parts: Omit<ReadsContext, "standingsScript">): ReadsContext {
  return { ...parts, standingsScript: defineStandingsScript(parts.redis) };
}
