/**
 * Fair queueing across concurrency keys (docs/architecture/flow-control.md#flow-control): a run fired with a `concurrencyKey` and no priority of its own
 * is enqueued with its place in its key's queue as its BullMQ priority, so
 * the first waiting run of every key goes before the second of any, and one
 * tenant's 10,000 queued runs do not starve another's 10 (round-robin across
 * keys). A run leaves its key's queue when a worker admits it.
 */

import { MAX_RUN_PRIORITY } from "@errand/core";
import type { RedisClient } from "@errand/store/ops";
import { addToGroup } from "../add-to-group.js";
import { flowKeys } from "./flow-keys.js";
import { flowScripts } from "./flow-scripts.js";

/**
 * How long a run stays in its key's fair queue, at most: 24 hours, after
 * which a run cancelled or lost while queued no longer pushes its key's later
 * runs back.
 */
const FAIR_QUEUE_HORIZON_MS = 24 * 60 * 60 * 1_000;

/** A run about to be enqueued. */
export interface FairRun {
  runId: string;
  concurrencyKey?: string;
  /** Its own priority: a run that has one keeps it. */
  priority?: number;
}

/**
 * The fair priorities of the `runs` that have a concurrency key and no
 * priority, by runId: one script call per key.
 */
export async function fairPriorities(
  redis: RedisClient,
  prefix: string,
  runs: readonly FairRun[],
): Promise<Map<string, number>> {
  const byKey = new Map<string, string[]>();
  for (const { runId, concurrencyKey, priority } of runs) {
    if (concurrencyKey === undefined || priority !== undefined) continue;
    addToGroup(byKey, concurrencyKey, runId);
  }
  const priorities = new Map<string, number>();
  if (byKey.size === 0) return priorities;
  const keys = flowKeys(prefix);
  const { fairQueue } = flowScripts(redis);
  await Promise.all(
    [...byKey].map(async ([key, runIds]) => {
      const places = (await fairQueue(
        [keys.fairQueue(key)],
        [FAIR_QUEUE_HORIZON_MS, ...runIds],
      )) as number[];
      runIds.forEach((runId, index) => {
        priorities.set(runId, Math.min(Number(places[index]), MAX_RUN_PRIORITY));
      });
    }),
  );
  return priorities;
}
