/**
 * `errand_redis_errors_total{kind}`: the errors a process's Redis
 * connections report (ioredis' `error` event: a refused or lost connection,
 * a timeout, a failed reconnection), by kind: the system error code in lower
 * case (`econnrefused`, `econnreset`, `etimedout`, …), or `other`. Commands
 * Redis refuses (an out-of-memory refusal, waited out and logged) are not
 * connection errors and are not counted here.
 */
import type { RedisConnection } from "../redis/connection.js";
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** The kind label of a Redis connection's `error`. */
function redisErrorKind(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code.toLowerCase() : "other";
}

/**
 * Counts the errors `connections` report from now on in `metrics`. Logging
 * them is the connection's own watcher's job (`connection-states.ts`: one
 * line per state change, not one per error).
 */
export function countRedisErrors(
  metrics: PrometheusMetrics,
  ...connections: readonly RedisConnection[]
): void {
  for (const connection of connections) {
    connection.on("error", (error: unknown) => {
      metrics.redisErrors.inc({ kind: redisErrorKind(error) });
    });
  }
}
