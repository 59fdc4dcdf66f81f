/**
 * `errand up`: a worker and a collector in one process, for local development.
 */
import type { Agent } from "@errand/runtime";
import { loadAgents } from "../agents-module.js";
import { CONNECTION_OPTIONS, type CommandSpec } from "../command.js";
import { demoAgents } from "../demo/agents.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { catchStopSignals, type LocalRedis, localRedis } from "../lifecycle.js";
import { startLocalEngine } from "../local-engine.js";
import { modelFromEnv } from "../models.js";
import { writeLines } from "../output.js";
import { keyPrefix, redactUrl } from "../redis.js";

/** What `up` runs, and where. */
interface UpPlan {
  redis: LocalRedis;
  prefix: string;
  agents: readonly Agent[];
  /** How the agents' model is described, when `up` chose it (the demo agents). */
  model?: string;
  concurrency: number;
}

/** Runs a worker and a collector until `stopped` resolves, then stops them and lets the Redis go. */
async function serve(io: CliIO, plan: UpPlan, stopped: Promise<unknown>): Promise<void> {
  const { redis, prefix, agents } = plan;
  try {
    const engine = await startLocalEngine({
      url: redis.url,
      prefix,
      agents,
      concurrency: plan.concurrency,
      log: { io, level: "warn" },
    });
    const where = redis.private ? "a private Redis, removed on exit" : "the given Redis";
    const names = agents.map((agent) => agent.name).join(", ");
    writeLines(io, [
      `errand up: worker and collector on ${where}`,
      `  REDIS_URL=${redactUrl(redis.url)}${prefix === "errand" ? "" : `  (prefix ${prefix})`}`,
      `  agents: ${names}${plan.model === undefined ? "" : ` on ${plan.model}`}`,
      "  Ctrl-C to stop.",
    ]);
    await stopped;
    await engine.stop();
  } finally {
    await redis.release();
  }
}

/** `up`. */
export const upCommand: CommandSpec = {
  usage: "errand up [--agents <module>] [--concurrency N] [--redis <url>] [--prefix <prefix>]",
  description: [
    "Runs a worker and a collector in this process until Ctrl-C. Without --agents it runs",
    "the demo's agents (on the scripted model without OPENAI_API_KEY). Without REDIS_URL",
    "it starts a private redis-server (from PATH, else Docker) and removes it on exit; it",
    "prints the URL to export in other shells (errand fire, errand runs …).",
  ].join("\n"),
  options: {
    agents: { type: "string", value: "<module>", description: "the module exporting the agents" },
    concurrency: { type: "string", value: "<N>", description: "runs at once (default 8)" },
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const concurrency = args.integer("concurrency", { min: 1, max: 1000 }, 8);
    const prefix = keyPrefix(args);
    const agentsPath = args.string("agents");
    const model = modelFromEnv(io.env);
    const agents =
      agentsPath === undefined ? demoAgents(model.model) : await loadAgents(io, agentsPath);
    const signals = catchStopSignals();
    try {
      const redis = await localRedis(args, io);
      const described = agentsPath === undefined ? { model: model.description } : {};
      await serve(io, { redis, prefix, agents, concurrency, ...described }, signals.first);
    } finally {
      signals.release();
    }
    return EXIT.ok;
  },
};
