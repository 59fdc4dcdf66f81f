/**
 * `GET /livez`, `GET /readyz` and `GET /metrics`, as every errand process
 * serves them, without a key (a probe and Prometheus carry none):
 *
 * - `/livez`: 200 while the process answers at all;
 * - `/readyz`: 200 while Redis answers PING within a second; 503 when it
 *   does not, and once the process is closing;
 * - `/metrics`: the API's open streams and its Redis connection's errors,
 *   in Prometheus' text format.
 *
 * Their bodies say nothing of the deployment.
 */
import { createPrometheusMetrics } from "@errand/engine";
import { countRedisErrors } from "@errand/engine/ops";
import type { Hono } from "hono";
import type { ApiContext } from "../context.js";
import type { ApiEnv } from "./env.js";

const PING_TIMEOUT_MS = 1_000;

/** Whether Redis answers PING in time (the connection queues commands while Redis is away). */
async function pingAnswered(context: ApiContext): Promise<boolean> {
  const late = new Promise<false>((resolve) => setTimeout(resolve, PING_TIMEOUT_MS, false).unref());
  return Promise.race([
    context.redis.ping().then(
      () => true,
      () => false,
    ),
    late,
  ]);
}

/** Adds the probes and `/metrics` to `app`: register them before the access check. */
export function addProbes(app: Hono<ApiEnv>, context: ApiContext, isClosing: () => boolean): void {
  const plain = { "Cache-Control": "no-store" };
  app.get("/livez", (c) => c.text("ok\n", 200, plain));
  app.get("/readyz", async (c) => {
    if (isClosing()) return c.text("shutting down\n", 503, plain);
    if (!(await pingAnswered(context))) return c.text("redis does not answer\n", 503, plain);
    return c.text("ok\n", 200, plain);
  });
  const metrics = createPrometheusMetrics();
  countRedisErrors(metrics, context.redis);
  metrics.addScrapedGauge(
    "api_open_streams",
    "Server-sent-event streams the API holds open",
    [],
    (gauge) => {
      gauge.set(context.streams.openCount);
    },
  );
  app.get("/metrics", async (c) =>
    c.body(await metrics.text(), 200, { "Content-Type": metrics.contentType, ...plain }),
  );
}
