/**
 * What every part of a collector works with: one command connection, the
 * keys, the store, the scripts, the consumer group and its consumer name,
 * and the runs it folds in memory.
 */
import type { Logger } from "@errand/runtime";
import type { EventStore, OutcomeWriter } from "@errand/store";
import type { RedisConnection } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import type { RunProjections } from "./run-projections.js";
import type { CollectorScripts } from "./scripts.js";

/** The shared resources of one collector; as an `OutcomeWriter`, it writes indexes and results. */
export interface CollectorContext extends OutcomeWriter {
  /** The command connection (never used for blocking reads). */
  redis: RedisConnection;
  keys: EngineKeys;
  /** The store on {@link redis}, for reading run logs. */
  store: EventStore;
  scripts: CollectorScripts;
  /** The consumer group every collector reads the shard streams through. */
  group: string;
  /** This collector's name in the group. */
  consumer: string;
  /** Deliveries after which an entry that keeps failing goes to the dead letters. */
  maxDeliveries: number;
  /** The runs folded in memory as their entries arrive. */
  projections: RunProjections;
  logger: Logger;
}
