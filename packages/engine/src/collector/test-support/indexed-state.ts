/**
 * What the collector leaves in Redis for a set of planned runs — results and
 * run indexes — read in a prefix-free shape, and what
 * it must be, derived from the runs' logs by core's fold. Two collections of
 * the same runs (one disturbed, one not) compare equal through it.
 * Test-only: not exported.
 */
import { foldRun, settleRun } from "@errand/core";
import type { EventStore } from "@errand/store";
import { runIndexMember, storedResultJson } from "@errand/store/ops";
import type { Cluster, Redis } from "ioredis";
import type { EngineKeys } from "../../engine-keys.js";
import { readCollectorMetrics } from "../metrics.js";
import { eventually } from "./conditions.js";
import type { PlannedRun } from "./planned-runs.js";

/** The collector's projections of some runs. */
export interface IndexedState {
  /** Result JSON by runId (null: none). */
  results: Record<string, string | null>;
  /** Per status index (active, succeeded, failed, cancelled), its members over every shard, sorted. */
  index: Record<string, string[]>;
}

const INDEXES = ["active", "succeeded", "failed", "cancelled"] as const;

/** Reads what the collector wrote for `runs`. */
export async function readIndexedState(
  redis: Redis | Cluster,
  keys: EngineKeys,
  runs: readonly PlannedRun[],
  shards: number,
): Promise<IndexedState> {
  const results: Record<string, string | null> = {};
  for (const run of runs) results[run.runId] = await redis.get(keys.result(run.runId));
  const index: Record<string, string[]> = {};
  for (const name of INDEXES) {
    const members: string[] = [];
    for (let shard = 0; shard < shards; shard += 1) {
      members.push(...(await redis.zrange(keys.runIndexByStatus(shard, name), 0, -1)));
    }
    index[name] = members.sort();
  }
  return { results, index };
}

/** What the collector must have written for `runs`, from their logs. */
export async function expectedIndexedState(
  store: EventStore,
  runs: readonly PlannedRun[],
): Promise<IndexedState> {
  const results: Record<string, string | null> = {};
  const index: Record<string, string[]> = Object.fromEntries(INDEXES.map((name) => [name, []]));
  for (const run of runs) {
    const state = foldRun(await store.readLog(run.runId), run.runId);
    const result = settleRun(state);
    results[run.runId] = result === undefined ? null : storedResultJson(result);
    const member = runIndexMember(run.events[0]!.at, run.runId);
    index[result?.status ?? "active"]!.push(member);
  }
  for (const list of Object.values(index)) list.sort();
  return { results, index };
}

/**
 * Waits until the collectors' group has nothing left on `shards`: no lag,
 * nothing pending, and a result for every run of `settling`.
 */
export async function waitUntilIndexed(
  redis: Redis | Cluster,
  keys: EngineKeys,
  settling: readonly string[],
  shards: number,
  timeoutMs?: number,
): Promise<void> {
  await eventually(
    "every entry collected and every result written",
    async () => {
      const metrics = await readCollectorMetrics(redis, keys, { shards });
      if (metrics.shards.some((shard) => shard.lag !== 0 || shard.pending > 0)) return undefined;
      const missing = await Promise.all(
        settling.map(async (runId) => (await redis.exists(keys.result(runId))) === 0),
      );
      return missing.some(Boolean) ? undefined : true;
    },
    timeoutMs,
  );
}
