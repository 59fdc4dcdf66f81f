/**
 * A worker's slots: `errand_worker_slots` (its concurrency: how many runs it
 * works on at most at once) and `errand_worker_slots_busy` (how many now).
 * Busy slots over slots, summed over workers, is how full the fleet is.
 */
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** Adds the slot gauges of a worker of `concurrency` whose busy slots `busy()` counts. */
export function addWorkerSlotGauges(
  metrics: PrometheusMetrics,
  concurrency: number,
  busy: () => number,
): void {
  metrics.addScrapedGauge(
    "worker_slots",
    "Runs this worker works on at most at once.",
    [],
    (gauge) => gauge.set(concurrency),
  );
  metrics.addScrapedGauge("worker_slots_busy", "Runs this worker works on now.", [], (gauge) =>
    gauge.set(busy()),
  );
}
