/**
 * The entry of a worker process of the resume test: runs the reasoning
 * agents against the fake server at `FAKE_OPENAI_URL`, logs JSON lines to
 * stdout. Configured through `REDIS_URL`, `ERRAND_PREFIX`, `WORKER_ID`,
 * `FAKE_OPENAI_URL`, `LOCK_DURATION_MS`, `STALLED_INTERVAL_MS`.
 */
import { closeOnSignals, createWorker } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { requiredEnv } from "../chaos/environment.js";
import { reasoningAgents } from "./reasoning-agents.js";

const worker = await createWorker({
  connection: requiredEnv("REDIS_URL"),
  prefix: requiredEnv("ERRAND_PREFIX"),
  workerId: requiredEnv("WORKER_ID"),
  agents: reasoningAgents(requiredEnv("FAKE_OPENAI_URL")),
  logger: createLogger({ level: "info" }),
  concurrency: 2,
  retry: { baseDelayMs: 10, maxDelayMs: 50 },
  lockDuration: Number(requiredEnv("LOCK_DURATION_MS")),
  stalledInterval: Number(requiredEnv("STALLED_INTERVAL_MS")),
  maxStalledCount: 5,
});
closeOnSignals(worker);
