/**
 * The deployable processes, spawned from the built CLI for a test:
 * `errand worker --agents <fixture>` and `errand collector`, each resolved
 * once it logged that it is ready, and stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { ERRAND_BIN } from "./run-errand.js";

/** The agents module the test workers run. */
export const FIXTURE_AGENTS = fileURLToPath(new URL("./fixture-agents.mjs", import.meta.url));

/** A spawned `errand` process. */
export interface ErrandProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Sends `signal` (default SIGTERM) unless it has exited, and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `errand <args>` and resolves once a line of its output contains `readyText`. */
export async function spawnErrand(
  args: readonly string[],
  env: Record<string, string>,
  readyText: string,
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
): Promise<{ worker: ErrandProcess; collector: ErrandProcess; stop(): Promise<void> }> {
  const env = { REDIS_URL: redisUrl };
  const collector = await spawnErrand(["collector", "--prefix", prefix], env, "collector ready");
  const worker = await spawnErrand(
    ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix],
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
