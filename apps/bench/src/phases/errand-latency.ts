/**
 * errand latency at a fixed offered rate: runs fired one by one with `fire`
 * on a schedule of `rate` per second (late timers catch up, the schedule
 * does not drift), each timed from the call of `fire` until `result` returns
 * its `RunResult` (waiting on the collector's announcement, no polling),
 * with the profile of where that time went (see `latency-profile.ts`).
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError } from "@errand/core";
import type { BenchRedis } from "../bench-redis.js";
import { startErrandStack } from "../errand-stack.js";
import { epochNow, type LatencyProfile, startLatencyProfile } from "../latency-profile.js";
import { percentile } from "../stats.js";

/** What the latency phase measured. */
export interface ErrandLatency {
  p50Ms: number;
  p99Ms: number;
  /** Where the runs' time went, stage by stage, and what the process and the server did meanwhile. */
  profile: LatencyProfile;
}

/** The longest one run may take before the phase fails. */
const RESULT_WAIT_MS = 60_000;

/** Fires `runs` runs at `ratePerSec` and measures fire → result visible. */
export async function measureErrandLatency(
  redis: BenchRedis,
  runs: number,
  ratePerSec: number,
  concurrency: number,
): Promise<ErrandLatency> {
  await redis.flush();
  const stack = await startErrandStack({ redis, concurrency });
  const { errand } = stack;
  const recorder = await startLatencyProfile(redis);
  const timeOne = async (index: number): Promise<number> => {
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
    recorder.record(runId, { called, fired, returned });
    return returned - called;
  };
  try {
    const started = performance.now();
    const timings: Promise<number | { error: unknown }>[] = [];
    for (let index = 0; index < runs; index += 1) {
      const due = started + (index * 1000) / ratePerSec - performance.now();
      if (due > 0) await delay(due);
      // Handled at once, so a failure is reported after the schedule, never as an unhandled rejection.
      timings.push(timeOne(index).catch((error: unknown) => ({ error })));
    }
    const outcomes = await Promise.all(timings);
    const latencies = outcomes.filter((outcome) => typeof outcome === "number");
    const failure = outcomes.find((outcome) => typeof outcome !== "number");
    if (failure !== undefined) throw failure.error;
    const profile = await recorder.profile(errand);
    return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), profile };
  } finally {
    await recorder.stop();
    await stack.stop();
  }
}
