/** What every client read works with: the store's outcome reads, and more. */
import { defineStandingsScript, type OutcomeReads, type SettledWaiter } from "@errand/store/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { EngineResources } from "../resources.js";

/** What the reads work with: the resources, the store's outcome reads, and the waiter. */
export interface ReadsContext extends EngineResources, OutcomeReads {
  keys: EngineKeys;
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
