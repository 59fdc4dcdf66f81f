/**
 * The entry of a worker process of the resume tests: runs the reasoning
 * agents against the fake OpenAI server at `FAKE_OPENAI_URL`, or, when
 * `FAKE_ANTHROPIC_URL` is set instead, the thinking agent against the fake
 * Anthropic server; logs JSON lines to stdout. Configured through
 * `REDIS_URL`, `ERRAND_PREFIX`, `WORKER_ID`, one of those URLs,
 * `LOCK_DURATION_MS`, `STALLED_INTERVAL_MS`.
 */
import { closeOnSignals, createWorker } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { requiredEnv } from "../chaos/environment.js";
import { reasoningAgents } from "./reasoning-agents.js";
import { thinkingAgent } from "./thinking-agent.js";

const anthropicURL = process.env.FAKE_ANTHROPIC_URL;

const worker = await createWorker({
  connection: requiredEnv("REDIS_URL"),
  prefix: requiredEnv("ERRAND_PREFIX"),
  workerId: requiredEnv("WORKER_ID"),
  agents:
    anthropicURL === undefined
      ? reasoningAgents(requiredEnv("FAKE_OPENAI_URL"))
      : [thinkingAgent(anthropicURL)],
  logger: createLogger({ level: "info" }),
  concurrency: 2,
  retry: { baseDelayMs: 10, maxDelayMs: 50 },
  lockDuration: Number(requiredEnv("LOCK_DURATION_MS")),
  stalledInterval: Number(requiredEnv("STALLED_INTERVAL_MS")),
  maxStalledCount: 5,
});
closeOnSignals(worker);
