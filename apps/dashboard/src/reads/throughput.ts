/**
 * Runs settled per minute and the failure rate over the last minutes, from
 * the settled runs' times: pure, so it is tested without Redis.
 */
import type { SettledStatus } from "@errand/core";
import type { SettledRun } from "./settled-runs.js";

/** How many minutes the overview's rates cover. */
export const THROUGHPUT_MINUTES = 15;

/** Runs settled in one minute, by status. */
export interface MinuteCounts {
  /** The minute's start (ISO-8601). */
  minute: string;
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** The overview's rates. */
export interface Throughput {
  /** The minutes covered, oldest first; the last one is the current (partial) minute. */
  minutes: MinuteCounts[];
  /** Runs settled in those minutes. */
  settled: number;
  failed: number;
  /** `settled` divided by the number of minutes. */
  settledPerMinute: number;
  /** `failed / settled`; null when nothing settled. */
  failureRate: number | null;
}

const MINUTE_MS = 60_000;

/** The counts of `runs` settled in the `minutes` minutes up to `nowMs`. */
export function throughputOf(
  runs: readonly SettledRun[],
  nowMs: number,
  minutes: number = THROUGHPUT_MINUTES,
): Throughput {
  const currentMinute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  const firstMinute = currentMinute - (minutes - 1) * MINUTE_MS;
  const buckets: MinuteCounts[] = Array.from({ length: minutes }, (_, index) => ({
    minute: new Date(firstMinute + index * MINUTE_MS).toISOString(),
    succeeded: 0,
    failed: 0,
    cancelled: 0,
  }));
  for (const run of runs) {
    if (run.settledAtMs > nowMs) continue;
    const bucket = buckets[Math.floor((run.settledAtMs - firstMinute) / MINUTE_MS)];
    if (run.settledAtMs >= firstMinute && bucket) bucket[run.status] += 1;
  }
  const total = (status: SettledStatus) => buckets.reduce((sum, bucket) => sum + bucket[status], 0);
  const failed = total("failed");
  const settled = failed + total("succeeded") + total("cancelled");
  return {
    minutes: buckets,
    settled,
    failed,
    settledPerMinute: settled / minutes,
    failureRate: settled === 0 ? null : failed / settled,
  };
}
