/**
 * `errand up`: a worker, a collector and the dashboard in one process, for
 * local development.
 */
import { DEFAULT_DASHBOARD_PORT } from "@errand/dashboard";
import type { Agent } from "@errand/runtime";
import type { Durability } from "@errand/store";
import { loadAgents } from "../agents-module.js";
import { type ParsedArgs, usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { PUBLIC_URL_OPTION, publicUrlOption, startDashboard } from "../dashboard-server.js";
import { DASHBOARD_URL_VARIABLE, dashboardUrlOption } from "../dashboard-url.js";
import { demoAgents } from "../demo/agents.js";
import { DURABILITY_OPTION, durabilityOption } from "../durability.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { catchStopSignals, type LocalRedis, localRedis } from "../lifecycle.js";
import { startLocalEngine } from "../local-engine.js";
import { stderrLogger } from "../log.js";
import { modelFromEnv } from "../models.js";
import { writeLines } from "../output.js";
import { givenRedisUrl, keyPrefix, redactUrl } from "../redis.js";

/** What `up` runs, and where. */
interface UpPlan {
  redis: LocalRedis;
  prefix: string;
  agents: readonly Agent[];
  /** How the agents' model is described, when `up` chose it (the demo agents). */
  model?: string;
  concurrency: number;
  /** The dashboard's port (0: a free one); `undefined`: no dashboard. */
  dashboardPort: number | undefined;
  /** Where a reverse proxy serves the dashboard, when one does. */
  publicUrl?: string;
  /** How the worker and the collector acknowledge their writes (`--durability`); default the engine's. */
  durable: { durability?: Durability };
}

/**
 * `--durability`, else `ERRAND_DURABILITY`. `replicated` needs a given Redis:
 * the private one `up` starts has no replica, so every settling append would fail.
 */
function upDurability(args: ParsedArgs, io: CliIO): { durability?: Durability } {
  const durable = durabilityOption(args, io);
  if (durable.durability === "replicated" && givenRedisUrl(args, io) === undefined) {
    throw usageError(
      "up: --durability replicated needs a Redis with a replica: give --redis or REDIS_URL (the private Redis up starts has none)",
    );
  }
  return durable;
}

/**
 * Serves the dashboard (first: a taken port fails before any run is taken),
 * a worker and a collector until `stopped` resolves, then stops them and lets
 * the Redis go — also when one of them cannot start. The worker links the
 * parent tools' children to the dashboard it serves (else to
 * `ERRAND_DASHBOARD_URL`).
 */
async function serve(io: CliIO, plan: UpPlan, stopped: Promise<unknown>): Promise<void> {
  const { redis, prefix, agents } = plan;
  try {
    const dashboard =
      plan.dashboardPort === undefined
        ? undefined
        : await startDashboard(
            {
              connection: redis.url,
              prefix,
              port: plan.dashboardPort,
              ...(plan.publicUrl === undefined ? {} : { publicUrl: plan.publicUrl }),
              logger: stderrLogger(io, "warn", "errand-dashboard"),
            },
            "--dashboard-port",
          );
    try {
      const linked =
        dashboard === undefined ? dashboardUrlOption(io) : { dashboardUrl: dashboard.publicUrl };
      const engine = await startLocalEngine({
        url: redis.url,
        prefix,
        agents,
        concurrency: plan.concurrency,
        log: { io, level: "warn" },
        ...plan.durable,
        ...linked,
      });
      const where = redis.private ? "a private Redis, removed on exit" : "the given Redis";
      const names = agents.map((agent) => agent.name).join(", ");
      writeLines(io, [
        `errand up: worker, collector${dashboard ? " and dashboard" : ""} on ${where}`,
        `  REDIS_URL=${redactUrl(redis.url)}${prefix === "errand" ? "" : `  (prefix ${prefix})`}`,
        ...(dashboard ? [`  ${DASHBOARD_URL_VARIABLE}=${dashboard.publicUrl}`] : []),
        `  agents: ${names}${plan.model === undefined ? "" : ` on ${plan.model}`}`,
        "  Ctrl-C to stop.",
      ]);
      await stopped;
      await engine.stop();
    } finally {
      await dashboard?.close();
    }
  } finally {
    await redis.release();
  }
}

/** `up`. */
export const upCommand: CommandSpec = {
  usage:
    "errand up [--agents <module>] [--concurrency N] [--dashboard-port N | --no-dashboard] [--public-url <url>] [--durability <acknowledged|replicated>] [--redis <url>] [--prefix <prefix>]",
  description: [
    "Runs a worker, a collector and the dashboard (on 127.0.0.1, port 4040 unless told;",
    "0 picks a free one) in this process until Ctrl-C, SIGTERM or SIGHUP (a closed",
    "terminal). Without --agents it runs the demo's agents (on the scripted model without",
    "OPENAI_API_KEY or OPENAI_BASE_URL). Without REDIS_URL it starts a private",
    "redis-server (from PATH, else Docker) with production's settings (append-only file,",
    "maxmemory-policy noeviction) and removes it when it stops (a redis-server from PATH",
    "also when this process is killed). It prints the URLs to export in other shells",
    "(errand fire, errand runs, errand doctor): REDIS_URL and ERRAND_DASHBOARD_URL, the",
    "dashboard that the runs in answers (the CLI's --json, the parent tools' children on",
    "its worker) then link to with their viewUrl. A dashboard port another process holds",
    "is refused with exit code 3 before a run is taken, and the private Redis is removed:",
    "choose another port with --dashboard-port, or run --no-dashboard. Behind a reverse",
    "proxy, --public-url names where people open the dashboard (see errand dashboard --help):",
    "the runs then link there. With --durability replicated its worker and collector wait",
    "for a Redis replica as errand worker's and errand collector's do: it needs a given",
    "Redis with a replica, and is refused with exit code 2 when up would start its own.",
  ].join("\n"),
  options: {
    agents: { type: "string", value: "<module>", description: "the module exporting the agents" },
    concurrency: { type: "string", value: "<N>", description: "runs at once (default 8)" },
    "dashboard-port": {
      type: "string",
      value: "<N>",
      description: `the dashboard's port (default ${DEFAULT_DASHBOARD_PORT}; 0: a free one)`,
    },
    "no-dashboard": { type: "boolean", description: "run without the dashboard" },
    ...PUBLIC_URL_OPTION,
    ...DURABILITY_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const concurrency = args.integer("concurrency", { min: 1, max: 1000 }, 8);
    const dashboardPort = args.flag("no-dashboard")
      ? undefined
      : args.integer("dashboard-port", { min: 0, max: 65535 }, DEFAULT_DASHBOARD_PORT);
    const prefix = keyPrefix(args);
    const durable = upDurability(args, io);
    const agentsPath = args.string("agents");
    const model = agentsPath === undefined ? await modelFromEnv(io.env) : undefined;
    const agents =
      model === undefined ? await loadAgents(io, agentsPath ?? "") : demoAgents(model.model);
    const signals = catchStopSignals();
    try {
      const redis = await localRedis(args, io);
      const described = model === undefined ? {} : { model: model.description };
      const plan = {
        redis,
        prefix,
        agents,
        concurrency,
        dashboardPort,
        durable,
        ...publicUrlOption(args, io),
        ...described,
      };
      await serve(io, plan, signals.first);
    } finally {
      signals.release();
    }
    return EXIT.ok;
  },
};
