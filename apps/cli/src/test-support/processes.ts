/**
 * The deployable processes, spawned from the built CLI for a test:
 * `errand worker --agents <fixture>` and `errand collector`, each resolved
 * once it logged that it is ready, and stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { queueOfAgents } from "@errand/engine/ops";
import { ERRAND_BIN } from "./run-errand.js";

/** The agents module the test workers run. */
export const FIXTURE_AGENTS = fileURLToPath(new URL("./fixture-agents.mjs", import.meta.url));

/** A second agents module, another team's: the greeter (`greeter-agents.mjs`). */
export const GREETER_AGENTS = fileURLToPath(new URL("./greeter-agents.mjs", import.meta.url));

/** The queue of the workers that run {@link FIXTURE_AGENTS} under `prefix` (in `queueShards` shards). */
export function fixtureQueue(prefix: string, queueShards = 1): string {
  return queueOfAgents(prefix, ["scripted-city", "scripted-parent"], queueShards);
}

/** How a spawned process ended: its exit code, or the signal that killed it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A spawned `errand` process. */
export interface ErrandProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves once it has exited, however that came about. */
  exited(): Promise<ProcessExit>;
  /** Sends `signal` (default SIGTERM) unless it has exited, and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Options of {@link spawnErrand}. */
export interface SpawnErrandOptions {
  /** Start it as the leader of a process group of its own, as a shell starts a job. */
  detached?: boolean;
}

/** Spawns `errand <args>` and resolves once a line of its output contains `readyText`. */
export async function spawnErrand(
  args: readonly string[],
  env: Record<string, string>,
  readyText: string,
  options: SpawnErrandOptions = {},
): Promise<ErrandProcess> {
  const child = spawn(process.execPath, [ERRAND_BIN, ...args], {
    env: {
      ...process.env,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      ERRAND_LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let output = "";
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes(readyText)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    exited.then(([code]) =>
      reject(
        new Error(`errand ${args.join(" ")} exited with ${code} before it was ready:\n${output}`),
      ),
    );
  });
  return {
    child,
    output: () => output,
    async exited() {
      const [code, signal] = await exited;
      return { code, signal };
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}

/** A worker running the fixture agents and a collector, on `redisUrl` under `prefix`. */
export async function startErrandProcesses(
  redisUrl: string,
  prefix: string,
  workerArgs: readonly string[] = [],
): Promise<{ worker: ErrandProcess; collector: ErrandProcess; stop(): Promise<void> }> {
  const env = { REDIS_URL: redisUrl };
  const collector = await spawnErrand(["collector", "--prefix", prefix], env, "collector ready");
  const worker = await spawnErrand(
    ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, ...workerArgs],
    env,
    "worker ready",
  );
  return {
    worker,
    collector,
    async stop() {
      await Promise.all([worker.stop(), collector.stop()]);
    },
  };
}
