/** What every client read works with. */
import type { EventStore } from "@errand/store";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import type { SettledWaiter } from "./settled-waiter.js";

/** The shared resources of one client's reads. */
export interface ReadsContext {
  redis: RedisConnection;
  keys: EngineKeys;
  store: EventStore;
  waiter: SettledWaiter;
  /** The shards `list` looks at: 0 … `shards` − 1. */
  shards: number;
}
