/**
 * How much work each phase of the bench does: the full sizes of a published
 * run, the quick ones (under a minute), and any override a caller gives (the
 * smoke test runs tiny sizes).
 */
import { ErrandError } from "@errand/core";

/** The amount of work of each phase. */
export interface BenchSizes {
  /** No-op jobs of the raw BullMQ baseline. */
  bullmqJobs: number;
  /** One-step runs of the errand end-to-end throughput phase. */
  e2eRuns: number;
  /** Runs fired one by one in the latency phase. */
  latencyRuns: number;
  /** The offered rate of the latency phase, in runs per second. */
  latencyRatePerSec: number;
  /** Runs whose events make the collector's prepared backlog. */
  collectorRuns: number;
  /** Runs of the phase that counts the worker's appends (under MONITOR). */
  costSampleRuns: number;
  /** Jobs a worker runs at once, errand's and BullMQ's alike. */
  concurrency: number;
}

/** The sizes of a full run (the figures of BENCHMARKS.md). */
export const FULL_SIZES: Readonly<BenchSizes> = {
  bullmqJobs: 50_000,
  e2eRuns: 20_000,
  latencyRuns: 6_000,
  latencyRatePerSec: 200,
  collectorRuns: 20_000,
  costSampleRuns: 500,
  concurrency: 50,
};

/** The sizes of `--quick`: every phase, in well under a minute. */
export const QUICK_SIZES: Readonly<BenchSizes> = {
  bullmqJobs: 5_000,
  e2eRuns: 2_000,
  latencyRuns: 600,
  latencyRatePerSec: 200,
  collectorRuns: 2_000,
  costSampleRuns: 100,
  concurrency: 50,
};

/**
 * The sizes of a run: quick or full, with `overrides` on top. Throws an
 * {@link ErrandError} `invalid_spec` for a size that is not a positive integer.
 */
export function resolveSizes(quick: boolean, overrides: Partial<BenchSizes> = {}): BenchSizes {
  const sizes = { ...(quick ? QUICK_SIZES : FULL_SIZES), ...overrides };
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new ErrandError(
        "invalid_spec",
        `bench size ${name} must be a positive integer, not ${value}`,
      );
    }
  }
  return sizes;
}
