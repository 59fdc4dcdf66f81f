/** What every part of a reaper works with. */
import type { Logger } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import type { ReaperQueues } from "./queues.js";

/** The shared resources of one reaper. */
export interface ReaperContext {
  redis: RedisConnection;
  keys: EngineKeys;
  store: EventStore;
  queues: ReaperQueues;
  /** How many runs or jobs one read looks at. */
  batchSize: number;
  /** The clock (ms since the epoch). */
  now: () => number;
  logger: Logger;
}
