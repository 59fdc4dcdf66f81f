/**
 * The entry of a worker child process that starts a worker and does nothing
 * else: no Redis client, timer or signal handler of its own, so what keeps
 * it alive is the worker alone. Logs JSON lines to stdout: the worker's own,
 * the resources keeping its event loop alive once it is ready, and
 * `event loop emptied` if the process is about to exit by itself.
 * Configured through `REDIS_URL`, `ERRAND_PREFIX` and `WORKER_ID`.
 * Test-only: not exported.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { createLogger } from "../logger.js";
import { createWorker } from "../worker/create-worker.js";
import { BARE_AGENT } from "./worker-processes.js";

const logger = createLogger({ level: "info" });
process.once("beforeExit", () => logger.info("event loop emptied"));

await createWorker({
  connection: process.env.REDIS_URL!,
  prefix: process.env.ERRAND_PREFIX!,
  workerId: process.env.WORKER_ID!,
  logger,
  agents: [
    defineAgent({
      name: BARE_AGENT,
      instructions: "Follow your script.",
      model: scriptedModel(),
      scriptFromInput: true,
    }),
  ],
});
logger.info({ resources: process.getActiveResourcesInfo() }, "keeping the event loop alive");
