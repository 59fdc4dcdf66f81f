/** What every part of a reaper works with: its resources, its queues and its batch size. */
import type { EngineResources } from "../resources.js";
import type { ReaperQueues } from "./queues.js";

/** The shared resources of one reaper. */
export interface ReaperContext extends EngineResources {
  queues: ReaperQueues;
  /** How many runs or jobs one read looks at. */
  batchSize: number;
}
