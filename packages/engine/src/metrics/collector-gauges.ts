/**
 * The collectors' gauges: `errand_collector_lag_entries`,
 * `errand_collector_pending_entries` and `errand_collector_dead_letters`,
 * summed over the shards, from one read of the collectors' metrics per scrape.
 */
import type { CollectorMetrics } from "../collector/metrics.js";
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** Adds the collectors' gauges to `metrics`, set from what `read` answers at each scrape. */
export function addCollectorGauges(
  metrics: PrometheusMetrics,
  read: () => Promise<CollectorMetrics>,
): void {
  // The three gauges of one scrape share one read.
  let reading: Promise<CollectorMetrics> | undefined;
  const readOnce = () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const gauges = [
    ["collector_lag_entries", "Shard stream entries not yet delivered to any collector.", "lag"],
    [
      "collector_pending_entries",
      "Shard stream entries delivered to a collector and not yet acknowledged.",
      "pending",
    ],
    ["collector_dead_letters", "Entries in the collectors' dead-letter streams.", "deadLettered"],
  ] as const;
  for (const [suffix, help, field] of gauges) {
    metrics.addScrapedGauge(suffix, help, [], async (gauge) => {
      gauge.set((await readOnce())[field]);
    });
  }
}
