/**
 * The Redis load of job locks: `pnpm chaos:idle-load --runs 8 --seconds 30`.
 * Starts a real Redis and one chaos worker process running `--runs` runs at
 * once, each asleep in its model request for longer than the measure; once
 * every run started, resets Redis's statistics, waits `--seconds`, and prints
 * the commands per second the idle worker cost, from `INFO commandstats`
 * (commands inside Lua scripts counted too), by command. `--lock-ms` and
 * `--stalled-interval-ms` (default the engine's) set the worker's job locks.
 */
import { parseArgs } from "node:util";
import {
  createErrand,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
} from "@errand/engine";
import { Redis } from "ioredis";
import { CHAOS_AGENTS } from "./chaos-agents.js";
import { startCluster } from "./cluster-of-processes.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "8" },
    seconds: { type: "string", default: "30" },
    "lock-ms": { type: "string", default: String(DEFAULT_LOCK_DURATION_MS) },
    "stalled-interval-ms": { type: "string", default: String(DEFAULT_STALLED_INTERVAL_MS) },
  },
});
const runs = Number(values.runs);
const seconds = Number(values.seconds);
const lockDurationMs = Number(values["lock-ms"]);
const stalledIntervalMs = Number(values["stalled-interval-ms"]);

/** The harness's own commands, left out of the count. */
const OWN_COMMANDS = new Set(["info", "config|resetstat", "config"]);

/** `INFO commandstats` as calls by command. */
function callsByCommand(info: string): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const [, command = "", count = "0"] = match;
    if (!OWN_COMMANDS.has(command)) calls[command] = Number(count);
  }
  return calls;
}

const cluster = await startCluster({
  workers: 1,
  collectors: 0,
  lockDurationMs,
  stalledIntervalMs,
  workerConcurrency: runs,
});
const errand = createErrand({ connection: cluster.redis.url, prefix: cluster.prefix });
const admin = new Redis(cluster.redis.url);
try {
  // Each run sleeps in its first model request well past the measure.
  const asleepMs = (seconds + 60) * 1000;
  const runIds = await Promise.all(
    Array.from({ length: runs }, async () => {
      const fired = await errand.fire({
        agent: CHAOS_AGENTS.plain,
        input: { script: [{ sleepMs: asleepMs, say: "awake" }] },
      });
      return fired.runId;
    }),
  );
  await Promise.all(
    runIds.map(async (runId) => {
      for await (const event of errand.events(runId, { follow: true })) {
        if (event.type === "run-started") return;
      }
    }),
  );
  await admin.config("RESETSTAT");
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const calls = callsByCommand(await admin.info("commandstats"));
  const total = Object.values(calls).reduce((sum, count) => sum + count, 0);
  const perSecond = (count: number) => Math.round((count / seconds) * 100) / 100;
  const summary = {
    runs,
    seconds,
    lockDurationMs,
    stalledIntervalMs,
    commandsPerSecond: perSecond(total),
    byCommand: Object.fromEntries(
      Object.entries(calls)
        .sort(([, a], [, b]) => b - a)
        .map(([command, count]) => [command, perSecond(count)]),
    ),
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} finally {
  admin.disconnect();
  await errand.close();
  await cluster.stop();
}
