/**
 * `GET /metrics`: the deployment as the dashboard sees it, in Prometheus'
 * text format — each queue's jobs by state, the collectors' lag, pending
 * entries and dead letters, and the errors of the dashboard's own Redis
 * connection. It asks for the dashboard's token like the API (Prometheus
 * sends it with `authorization: { credentials: <token> }`).
 */
import { createPrometheusMetrics } from "@errand/engine";
import {
  addCollectorGauges,
  addQueueDepthGauge,
  countRedisErrors,
  readCollectorMetrics,
} from "@errand/engine/ops";
import type { Hono } from "hono";
import type { DashboardContext } from "../context.js";

/** Adds `GET /metrics` to `app`, read through `context`. */
export function addMetricsRoute(app: Hono, context: DashboardContext): void {
  const { redis, keys, options } = context;
  const metrics = createPrometheusMetrics();
  addQueueDepthGauge(metrics, () => redis, keys);
  addCollectorGauges(metrics, () => readCollectorMetrics(redis, keys, { shards: options.shards }));
  countRedisErrors(metrics, redis);
  app.get("/metrics", async (c) =>
    c.body(await metrics.text(), 200, {
      "Content-Type": metrics.contentType,
      "Cache-Control": "no-store",
    }),
  );
}
