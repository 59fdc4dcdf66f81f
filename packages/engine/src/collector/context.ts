/**
 * What every part of a collector works with: its resources, its scripts,
 * the consumer group and its consumer name, and the runs it folds in memory.
 */
import type { OutcomeWriter } from "@errand/store/ops";
import type { EngineKeys } from "../engine-keys.js";
import type { EngineResources } from "../resources.js";
import type { RunProjections } from "./run-projections.js";
import type { CollectorScripts } from "./scripts.js";

/** The shared resources of one collector; as an `OutcomeWriter`, it writes indexes and results. */
export interface CollectorContext extends EngineResources, OutcomeWriter {
  keys: EngineKeys;
  scripts: CollectorScripts;
  /** The consumer group every collector reads the shard streams through. */
  group: string;
  /** This collector's name in the group. */
  consumer: string;
  /** Deliveries after which an entry that keeps failing goes to the dead letters. */
  maxDeliveries: number;
  /** The runs folded in memory as their entries arrive. */
  projections: RunProjections;
  /** Aborted when the collector stops: ends its waits for a Redis out of memory to have room. */
  stopping: AbortSignal;
}
