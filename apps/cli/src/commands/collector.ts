/**
 * `errand collector`: the deployable collector process (with its reaper).
 */
import { createCollector, createPrometheusMetrics } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import {
  DURABILITY_OPTION,
  durabilityOption,
  LOG_ENTRIES_OPTION,
  logEntriesOption,
  RUN_KEY_EXPIRY_OPTION,
  runKeyExpiryOption,
} from "../durability.js";
import { EXIT } from "../exit-codes.js";
import { HEALTH_PORT_OPTION, startHealthServer } from "../health-server.js";
import { nextStopSignal } from "../lifecycle.js";
import { METRICS_PORT_OPTION, startMetricsServer } from "../metrics-server.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "../redis.js";

/** `collector`. */
export const collectorCommand: CommandSpec = {
  usage:
    "errand collector [--health-port N [--health-host <address>]] [--metrics-port N [--metrics-host <address>]] [--durability <acknowledged|replicated>] [--redis <url>] [--prefix <prefix>]",
  description: [
    "Folds the events of every shard into run results, announces settled children to",
    "their parents and wakes whoever waits for them; beside it a reaper settles runs whose",
    "job died or whose deadline passed. Run as many as you like: they share the work.",
    "Logs are JSON lines on stdout (ERRAND_LOG_LEVEL, default info). On SIGTERM, SIGINT",
    "or SIGHUP it finishes the batch in hand and exits 0; what it read but did not apply",
    "is left for the others.",
    "With --health-port, GET /livez answers 200 while it runs and GET /readyz 200 once it",
    "reads the shards and Redis answers PING (503 before, while Redis is away, and once",
    "stopping).",
    "With --metrics-port, GET /metrics answers its Prometheus metrics (a port of its own):",
    "queue depth, collector lag, pending entries and dead letters.",
    "Both listen on 127.0.0.1 and answer only requests naming a loopback host, unless",
    "--health-host or --metrics-host gives another address (0.0.0.0 for a pod's probes).",
  ].join("\n"),
  options: {
    ...HEALTH_PORT_OPTION,
    ...METRICS_PORT_OPTION,
    ...DURABILITY_OPTION,
    ...LOG_ENTRIES_OPTION,
    ...RUN_KEY_EXPIRY_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const prefix = keyPrefix(args);
    const url = requireRedisUrl(args, io);
    (await connectRedis(url)).disconnect();
    // Metrics first: it refuses --metrics-port equal to --health-port before anything listens.
    const prometheus = createPrometheusMetrics();
    const metrics = await startMetricsServer(args, prometheus);
    const health = await startHealthServer(args, url);
    const stopped = nextStopSignal();
    const logger = createLogger();
    const collector = createCollector({
      connection: url,
      prefix,
      logger,
      prometheus,
      ...durabilityOption(args, io),
      ...logEntriesOption(args, io),
      ...runKeyExpiryOption(args, io),
    });
    await collector.start();
    health.ready();
    logger.info({ consumer: collector.consumer }, "collector ready");
    await stopped;
    health.stopping();
    await collector.stop();
    await Promise.all([health.close(), metrics.close()]);
    return EXIT.ok;
  },
};
