/**
 * `GET /livez` and `GET /readyz`, the probes of an orchestrator (Kubernetes,
 * compose), answered without the dashboard's token: a probe carries none.
 *
 * - `/livez`: 200 while the server answers at all.
 * - `/readyz`: 200 while the dashboard's Redis answers PING within a second;
 *   503 when it does not, and once the dashboard is closing.
 *
 * The bodies are one word or line and say nothing of the deployment (not why
 * Redis does not answer: a public dashboard's probes are public too).
 */
import type { Hono } from "hono";
import type { DashboardContext } from "../context.js";

/** How long `/readyz` waits for PONG before Redis counts as not answering. */
const PING_TIMEOUT_MS = 1_000;

/** What the probes look at. */
export interface HealthProbe {
  readonly context: DashboardContext;
  /** True once `close()` was called. */
  isClosing(): boolean;
}

/**
 * True when `context.redis` answers PING within {@link PING_TIMEOUT_MS}. The
 * connection queues commands while Redis is away, so the PING is raced
 * against a timer rather than awaited.
 */
async function redisAnswers(context: DashboardContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  const pinged = context.redis.ping().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([pinged, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Adds the two probes to `app`: register them before the token is asked for. */
export function addHealthRoutes(app: Hono, probe: HealthProbe): void {
  const plain = { "Cache-Control": "no-store" };
  app.get("/livez", (c) => c.text("ok\n", 200, plain));
  app.get("/readyz", async (c) => {
    if (probe.isClosing()) return c.text("shutting down\n", 503, plain);
    if (!(await redisAnswers(probe.context))) return c.text("redis does not answer\n", 503, plain);
    return c.text("ok\n", 200, plain);
  });
}
