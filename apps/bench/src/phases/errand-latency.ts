/**
 * errand latency at a fixed offered rate: runs fired one by one with `fire`
 * on a schedule of `rate` per second (late timers catch up, the schedule
 * does not drift), each timed from the call of `fire` until `result` returns
 * its `RunResult` (waiting on the collector's announcement, no polling),
 * with the profile of where that time went (see `latency-profile.ts`).
 * The clock starts after {@link WARMUP_RUNS} runs offered the same way, and
 * then as many more as it takes to have run one on every shard: a fresh
 * stack's first runs open its connections and subscribe the client's
 * settled channels, which a running application did long before (and the
 * profile hears each run's announcement on the client's own subscriber).
 *
 * Laid out `"one-process"`, the client, the worker and the collector all run
 * in the bench's process; `"split"`, the worker and the collector run in a
 * child process of their own (`latency-parts.ts`) and the bench's process
 * only fires runs and waits for their results, as a producer of a
 * deployment does.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { DEFAULT_SHARDS } from "@errand/engine/ops";
import type { BenchRedis } from "../bench-redis.js";
import { startErrandStack } from "../errand-stack.js";
import {
  epochNow,
  type LatencyProfile,
  type LatencyRecorder,
  startLatencyProfile,
} from "../latency-profile.js";
import type { ProcessFigures } from "../process-watch.js";
import { percentile } from "../stats.js";
import { type LatencyParts, startLatencyParts } from "./latency-parts.js";

/** What the latency phase measured. */
export interface ErrandLatency {
  p50Ms: number;
  p99Ms: number;
  /** Where the runs' time went, stage by stage, and what the process and the server did meanwhile. */
  profile: LatencyProfile;
  /** The runs offered before the clock started, not timed. */
  warmupRuns: number;
  /** Laid out `"split"`: the event-loop delay and GC pauses of the worker's and the collector's process. */
  partsProcess?: ProcessFigures;
}

/** Where the phase runs errand's parts: all in the bench's process, or the worker and the collector apart. */
export type LatencyLayout = "one-process" | "split";

/** The longest one run may take before the phase fails. */
const RESULT_WAIT_MS = 60_000;

/** Runs offered before the clock starts, not timed (more follow until every shard had one). */
export const WARMUP_RUNS = 50;

/** The most warm-up runs fired one by one after {@link WARMUP_RUNS} to reach every shard. */
const MAX_SHARD_WARMUP_RUNS = 1_000;

/**
 * Offers runs `from` … `from + count - 1` to `timeOne`, one by one on a
 * schedule of `ratePerSec` (late timers catch up, the schedule does not
 * drift), and resolves with each one's outcome once all are done.
 */
export async function offerRuns<T>(
  from: number,
  count: number,
  ratePerSec: number,
  timeOne: (index: number) => Promise<T>,
): Promise<(T | { error: unknown })[]> {
  const started = performance.now();
  const outcomes: Promise<T | { error: unknown }>[] = [];
  for (let offset = 0; offset < count; offset += 1) {
    const due = started + (offset * 1000) / ratePerSec - performance.now();
    if (due > 0) await delay(due);
    // Handled at once, so a failure is reported after the schedule, never as an unhandled rejection.
    outcomes.push(timeOne(from + offset).catch((error: unknown) => ({ error })));
  }
  return Promise.all(outcomes);
}

/** Throws the first failure among `outcomes`, if any. */
export function throwFirstFailure(outcomes: readonly unknown[]): void {
  const failure = outcomes.find(
    (outcome): outcome is { error: unknown } =>
      typeof outcome === "object" && outcome !== null && "error" in outcome,
  );
  if (failure !== undefined) throw failure.error;
}

/** Fires `runs` runs at `ratePerSec` and measures fire → result visible, with errand's parts laid out as `layout`. */
export async function measureErrandLatency(
  redis: BenchRedis,
  runs: number,
  ratePerSec: number,
  concurrency: number,
  layout: LatencyLayout = "one-process",
): Promise<ErrandLatency> {
  await redis.flush();
  const split = layout === "split";
  const stack = await startErrandStack({
    redis,
    concurrency,
    worker: !split,
    collector: !split,
  });
  const { errand } = stack;
  /** Fires run `index`, waits for its result, and resolves with its milestones. */
  const timeOne = async (index: number) => {
    const called = epochNow();
    const { runId } = await errand.fire(stack.spec(index));
    const fired = epochNow();
    const result = await errand.result(runId, { waitMs: RESULT_WAIT_MS });
    const returned = epochNow();
    if (result?.status !== "succeeded") {
      throw new ErrandError(
        "internal",
        `bench run ${runId} ended ${result?.status ?? "unsettled"}`,
      );
    }
    return { runId, milestones: { called, fired, returned } };
  };
  let recorder: LatencyRecorder | undefined;
  let parts: LatencyParts | undefined;
  try {
    if (split) parts = await startLatencyParts(redis, concurrency);
    const warmup = await offerRuns(runs, WARMUP_RUNS, ratePerSec, timeOne);
    throwFirstFailure(warmup);
    const shardsRun = new Set<number>();
    for (const outcome of warmup)
      if ("runId" in outcome) shardsRun.add(shardOfRunId(outcome.runId));
    let warmupRuns = WARMUP_RUNS;
    while (shardsRun.size < DEFAULT_SHARDS && warmupRuns < WARMUP_RUNS + MAX_SHARD_WARMUP_RUNS) {
      const { runId } = await timeOne(runs + warmupRuns);
      shardsRun.add(shardOfRunId(runId));
      warmupRuns += 1;
    }
    const recording = await startLatencyProfile(redis);
    recorder = recording;
    parts?.watch();
    const outcomes = await offerRuns(0, runs, ratePerSec, async (index) => {
      const { runId, milestones } = await timeOne(index);
      recording.record(runId, milestones);
      return milestones.returned - milestones.called;
    });
    throwFirstFailure(outcomes);
    const latencies = outcomes.filter((outcome) => typeof outcome === "number");
    await recording.stop();
    const watched = await parts?.stop();
    parts = undefined;
    const profile = await recording.profile(errand, watched?.milestones);
    return {
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      profile,
      warmupRuns,
      ...(watched === undefined ? {} : { partsProcess: watched.process }),
    };
  } finally {
    await recorder?.stop();
    await parts?.stop();
    await stack.stop();
  }
}
