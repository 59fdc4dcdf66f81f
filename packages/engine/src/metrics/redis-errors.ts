/**
 * `errand_redis_errors_total{kind}`: the errors a process's Redis
 * connections report (ioredis' `error` event: a refused or lost connection,
 * a timeout, a failed reconnection), by kind: the system error code in lower
 * case (`econnrefused`, `econnreset`, `etimedout`, …), or `other`. Commands
 * Redis refuses (an out-of-memory refusal, waited out and logged) are not
 * connection errors and are not counted here.
 */
import type { Logger } from "@errand/runtime";
import type { RedisConnection } from "../connection.js";
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** The kind label of a Redis connection's `error`. */
function redisErrorKind(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code.toLowerCase() : "other";
}

/**
 * Counts the errors `connections` report from now on in `metrics`, and logs
 * each with `logger.warn` (a listener keeps ioredis from printing them itself).
 */
export function countRedisErrors(
  metrics: PrometheusMetrics,
  logger: Pick<Logger, "warn">,
  ...connections: readonly RedisConnection[]
): void {
  for (const connection of connections) {
    connection.on("error", (error: unknown) => {
      const kind = redisErrorKind(error);
      metrics.redisErrors.inc({ kind });
      logger.warn({ kind, error: String(error) }, "Redis connection error");
    });
  }
}
