/**
 * The entry of a worker child process for the engine's tests: runs the test
 * agents on a real worker, logs JSON lines to stdout (the test reads them as
 * events), and closes gracefully on SIGTERM. Configured through the
 * environment: `REDIS_URL`, `ERRAND_PREFIX`, `WORKER_ID`, `CONCURRENCY`,
 * `LOCK_DURATION_MS`, `STALLED_INTERVAL_MS`, `MAX_STALLED_COUNT`, `GRACE_MS`, `HEARTBEAT_MS`,
 * `AGENT_VERSION` (the version of every agent), `STREAMING_MODEL_URL` (also
 * run {@link STREAMER} on a streaming model at that base URL), `FLOW_CONTROL`
 * (its `flowControl`, as JSON), `OPENAI_AGENT` (run only an agent of that name
 * on `OPENAI_MODEL`, through the real `openai` client to `OPENAI_BASE_URL`,
 * instead of the test agents).
 * Test-only: not exported.
 */
import { defineAgent } from "@errand/runtime";
import { Redis } from "ioredis";
import type { FlowControlOptions } from "../flow-control/flow-options.js";
import { createLogger } from "../logger.js";
import { closeOnSignals } from "../worker/close-on-signals.js";
import { createWorker } from "../worker/create-worker.js";
import { streamingAgent, testAgents } from "./test-agents.js";

function numberFromEnv(name: string): number | undefined {
  const value = process.env[name];
  return value === undefined ? undefined : Number(value);
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`the test worker needs ${name}`);
  return value;
}

const url = requiredEnv("REDIS_URL");
const prefix = requiredEnv("ERRAND_PREFIX");
const logger = createLogger({ level: "debug" });
const redis = new Redis(url);
const optional = (key: string, value: number | undefined) =>
  value === undefined ? {} : { [key]: value };

const streamingModelUrl = process.env.STREAMING_MODEL_URL;
const worker = await createWorker({
  connection: url,
  prefix,
  workerId: requiredEnv("WORKER_ID"),
  agents:
    process.env.OPENAI_AGENT === undefined
      ? [
          ...testAgents({
            redis,
            prefix,
            onModelRequest: (request) => logger.info(request, "model request"),
            ...(process.env.AGENT_VERSION === undefined
              ? {}
              : { version: process.env.AGENT_VERSION }),
          }),
          ...(streamingModelUrl === undefined ? [] : [streamingAgent(streamingModelUrl)]),
        ]
      : [
          defineAgent({
            name: process.env.OPENAI_AGENT,
            instructions: "Answer.",
            model: requiredEnv("OPENAI_MODEL"),
          }),
        ],
  logger,
  concurrency: numberFromEnv("CONCURRENCY") ?? 1,
  retry: { baseDelayMs: 10, maxDelayMs: 50 },
  ...optional("lockDuration", numberFromEnv("LOCK_DURATION_MS")),
  ...optional("stalledInterval", numberFromEnv("STALLED_INTERVAL_MS")),
  ...optional("maxStalledCount", numberFromEnv("MAX_STALLED_COUNT")),
  ...optional("heartbeatMs", numberFromEnv("HEARTBEAT_MS")),
  ...(process.env.FLOW_CONTROL === undefined
    ? {}
    : { flowControl: JSON.parse(process.env.FLOW_CONTROL) as FlowControlOptions }),
});
closeOnSignals(worker, optional("graceMs", numberFromEnv("GRACE_MS")));
