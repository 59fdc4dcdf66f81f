/**
 * The entry of a chaos collector process (with its reaper): prints `ready`
 * once started. Configured through `REDIS_URL`, `ERRAND_PREFIX`, `COLLECTOR_ID`
 * and optionally `DURABILITY`.
 */
import { createCollector } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { durabilityEnv, requiredEnv } from "./environment.js";

const collector = createCollector({
  connection: requiredEnv("REDIS_URL"),
  prefix: requiredEnv("ERRAND_PREFIX"),
  consumer: requiredEnv("COLLECTOR_ID"),
  claimIdleMs: 2_000,
  logger: createLogger({ level: "info" }),
  ...durabilityEnv(),
});
await collector.start();
process.stdout.write(`${JSON.stringify({ msg: "collector ready" })}\n`);
process.once("SIGTERM", () => {
  void collector.stop().then(() => process.exit(0));
});
