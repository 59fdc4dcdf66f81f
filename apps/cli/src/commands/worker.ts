/**
 * `errand worker --agents <module>`: the deployable worker process.
 */
import { createPrometheusMetrics, createWorker } from "@errand/engine";
import { loadAgents } from "../agents-module.js";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { dashboardUrlOption } from "../dashboard-url.js";
import {
  CALL_ARGS_OPTION,
  callArgsOption,
  DURABILITY_OPTION,
  durabilityOption,
  LOG_ENTRIES_OPTION,
  logEntriesOption,
  RUN_KEY_EXPIRY_OPTION,
  runKeyExpiryOption,
} from "../durability.js";
import { EXIT } from "../exit-codes.js";
import { FLOW_CONTROL_OPTION, FLOW_CONTROL_VARIABLE, flowControlOption } from "../flow-control.js";
import { HEALTH_PORT_OPTION, startHealthServer } from "../health-server.js";
import { JOB_LOCK_OPTIONS, jobLockOption } from "../job-locks.js";
import { nextStopSignal } from "../lifecycle.js";
import { METRICS_PORT_OPTION, startMetricsServer } from "../metrics-server.js";
import { QUEUE_SHARDS_OPTIONS, queueShardsOption } from "../queue-shards.js";
import { connectRedis, keyPrefix, requireRedisUrl } from "../redis.js";
import { traceContentOption } from "../tracing/trace-content.js";

/** How many runs a CLI worker runs at once when not told. */
const DEFAULT_CONCURRENCY = 4;

/** `worker`. */
export const workerCommand: CommandSpec = {
  usage:
    "errand worker --agents <module> [--concurrency N] [--grace <seconds>] [--health-port N [--health-host <address>]] [--metrics-port N [--metrics-host <address>]] [--durability <acknowledged|replicated>] [--queue-shards N [--take-queue-shards i,j,…]] [--flow-control <json|@file>] [--lock-ms <ms>] [--stalled-interval-ms <ms>]",
  description: [
    "Runs the agents exported by <module> (what defineAgent returns, or arrays of them),",
    "taking their runs from the queue of that set of agents (<prefix>.<agent names>),",
    "which only workers running the same agents share. Agents that name their model run",
    "on an OpenAI-compatible model (OPENAI_API_KEY and/or OPENAI_BASE_URL: a local server",
    "needs no key). Logs are JSON lines on stdout (ERRAND_LOG_LEVEL, default info). On",
    "SIGTERM, SIGINT or SIGHUP it stops taking runs, lets the active ones finish for the",
    "grace period, and exits 0; a run still going then is resumed by another worker from",
    "its log. A worker killed without that (SIGKILL, a lost host) holds its runs until their",
    "job locks lapse: another worker runs them again within --lock-ms plus",
    "--stalled-interval-ms (5 s and 2.5 s by default).",
    "With ERRAND_DASHBOARD_URL set, the children in the answers of spawn_agents and",
    "collect_agents carry their viewUrl.",
    "With --health-port, GET /livez answers 200 while it runs and GET /readyz 200 once it",
    "takes runs and Redis answers PING (503 before, while Redis is away, and once stopping).",
    "With --metrics-port, GET /metrics answers its Prometheus metrics (a port of its own);",
    "without it the worker keeps no metrics at all (nothing counted as runs go).",
    "Both listen on 127.0.0.1 and answer only requests naming a loopback host, unless",
    "--health-host or --metrics-host gives another address (0.0.0.0 for a pod's probes).",
    "With --queue-shards N the queue is N BullMQ queues (<queue>~N.0 …), spread over the",
    "masters of a Redis Cluster; the worker takes from each (one blocking connection and at",
    "least one of its --concurrency slots each). Producers follow the registry.",
    `With --flow-control <json|@file> (else ${FLOW_CONTROL_VARIABLE}) it enforces limits shared`,
    "by every worker of the fleet (give each the same), as createWorker's flowControl: runs",
    "at once per agent (agentConcurrency) and per concurrency key (keyConcurrency: the first",
    "{ key, limit } whose key, or pattern with *, matches), and requests and tokens a minute",
    'per provider key (providerLimits, "*" for any). Runs over a limit wait in the queue,',
    "holding no slot. For example:",
    `  --flow-control '{"agentConcurrency":{"researcher":5},"keyConcurrency":[{"key":"tenant-*","limit":2}]}'`,
    `  ${FLOW_CONTROL_VARIABLE}='{"providerLimits":{"*":{"requestsPerMinute":500,"tokensPerMinute":200000}}}'`,
  ].join("\n"),
  options: {
    agents: { type: "string", value: "<module>", description: "the module exporting the agents" },
    concurrency: {
      type: "string",
      value: "<N>",
      description:
        "runs at once, at least one per queue shard taken (default 4, or one per shard when more)",
    },
    grace: {
      type: "string",
      value: "<seconds>",
      description: "how long active runs may finish on shutdown (default 30)",
    },
    ...HEALTH_PORT_OPTION,
    ...METRICS_PORT_OPTION,
    ...DURABILITY_OPTION,
    ...LOG_ENTRIES_OPTION,
    ...RUN_KEY_EXPIRY_OPTION,
    ...CALL_ARGS_OPTION,
    ...QUEUE_SHARDS_OPTIONS,
    ...FLOW_CONTROL_OPTION,
    ...JOB_LOCK_OPTIONS,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const shards = queueShardsOption(args, io);
    const taken = shards.takeQueueShards?.length ?? shards.queueShards ?? 1;
    const concurrency = args.integer(
      "concurrency",
      { min: 1, max: 1000 },
      Math.max(DEFAULT_CONCURRENCY, taken),
    );
    const graceSeconds = args.integer("grace", { min: 0, max: 3600 }, 30);
    const prefix = keyPrefix(args);
    const linked = dashboardUrlOption(io);
    const flowControl = await flowControlOption(args, io);
    const jobLocks = jobLockOption(args, io);
    const agents = await loadAgents(io, args.requiredString("agents"));
    const url = requireRedisUrl(args, io);
    (await connectRedis(url)).disconnect();
    // Metrics first: it refuses --metrics-port equal to --health-port before anything listens.
    // Without --metrics-port nobody reads its metrics: the worker keeps none (prometheus: false).
    const prometheus =
      args.string("metrics-port") === undefined ? false : createPrometheusMetrics();
    const metrics = await startMetricsServer(args, prometheus);
    const health = await startHealthServer(args, url);
    const stopped = nextStopSignal();
    const worker = await createWorker({
      connection: url,
      agents,
      prefix,
      concurrency,
      ...shards,
      prometheus,
      ...linked,
      ...durabilityOption(args, io),
      ...logEntriesOption(args, io),
      ...runKeyExpiryOption(args, io),
      ...callArgsOption(args, io),
      ...flowControl,
      ...jobLocks,
      ...traceContentOption(io.env),
    });
    health.ready();
    await stopped;
    health.stopping();
    await worker.close({ graceMs: graceSeconds * 1000 });
    await Promise.all([health.close(), metrics.close()]);
    return EXIT.ok;
  },
};
