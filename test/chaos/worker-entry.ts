/**
 * The entry of a chaos worker process: runs the chaos agents on a real
 * worker with a short lock, logs JSON lines to stdout (the harness counts
 * them). Configured through `REDIS_URL`, `ERRAND_PREFIX`, `WORKER_ID`, and
 * optionally `LOCK_DURATION_MS`, `STALLED_INTERVAL_MS` (default the engine's),
 * `CONCURRENCY` (default 4) and `MAX_STALLED_COUNT` (default the engine's).
 */
import { closeOnSignals, createWorker } from "@errand/engine";
import { createLogger, openRedisUrl } from "@errand/engine/ops";
import { chaosAgents } from "./chaos-agents.js";
import { durabilityEnv, optionalNumberEnv, requiredEnv } from "./environment.js";

const url = requiredEnv("REDIS_URL");
const prefix = requiredEnv("ERRAND_PREFIX");
const redis = openRedisUrl(url, { redisOptions: { maxRetriesPerRequest: null } });
// While Redis restarts the client reconnects by itself; its connection errors are expected.
redis.on("error", () => undefined);
const worker = await createWorker({
  connection: url,
  prefix,
  workerId: requiredEnv("WORKER_ID"),
  agents: chaosAgents(redis, prefix),
  logger: createLogger({ level: "info" }),
  concurrency: optionalNumberEnv("CONCURRENCY") ?? 4,
  retry: { baseDelayMs: 10, maxDelayMs: 50 },
  lockDuration: optionalNumberEnv("LOCK_DURATION_MS"),
  stalledInterval: optionalNumberEnv("STALLED_INTERVAL_MS"),
  maxStalledCount: optionalNumberEnv("MAX_STALLED_COUNT"),
  parkRecheckMs: 5_000,
  ...durabilityEnv(),
});
closeOnSignals(worker);
