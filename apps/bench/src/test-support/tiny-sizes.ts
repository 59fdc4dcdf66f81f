/** Sizes small enough for a smoke test: every phase runs, in a few seconds. */
import type { BenchSizes } from "../sizes.js";

/** The smoke test's sizes (concurrency stays the bench's). */
export const BENCH_TINY_SIZES = {
  bullmqJobs: 300,
  e2eRuns: 200,
  latencyRuns: 40,
  latencyRatePerSec: 200,
  collectorRuns: 200,
  costSampleRuns: 30,
} as const satisfies Partial<BenchSizes>;
