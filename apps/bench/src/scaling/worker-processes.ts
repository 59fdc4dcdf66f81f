/**
 * The worker processes of `errand bench --scaling`: real child processes of
 * Node (`worker-process.ts`), each a worker of its own on its own
 * connections, as a deployment runs them. From the built package they run
 * the built entry; from the sources (tests) the TypeScript one through tsx.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ErrandError } from "@errand/core";
import type { BenchTarget } from "../errand-stack.js";

/** What each worker process is told, as JSON in its first argument. */
export interface WorkerOrders {
  target: BenchTarget;
  /** Runs it takes at once. */
  concurrency: number;
}

/** Started worker processes. */
export interface WorkerProcesses {
  /** Their process ids. */
  pids: number[];
  /** Stops each (SIGTERM, no grace) and resolves with the CPU they spent in all since ready, ms. */
  stop(): Promise<number>;
}

const FROM_SOURCE = import.meta.url.endsWith(".ts");
const ENTRY = fileURLToPath(
  new URL(`./worker-process.${FROM_SOURCE ? "ts" : "js"}`, import.meta.url),
);
const NODE_ARGS = FROM_SOURCE ? ["--import", "tsx", "--conditions=@errand/source"] : [];
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** The longest a worker process may take to say `ready`, or to stop. */
const PROCESS_TIMEOUT_MS = 60_000;

/** One child, and the lines it printed so far. */
interface Child {
  process: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

function spawnChild(orders: WorkerOrders): Child {
  const child = spawn(process.execPath, [...NODE_ARGS, ENTRY, JSON.stringify(orders)], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, REDIS_URL: orders.target.url },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { process: child, lines, exited };
}

/**
 * Resolves with the number after `word` in the first line of `child` that
 * starts with it; rejects when the child exits first or after the timeout.
 */
async function numberAfter(child: Child, word: string, what: string): Promise<number> {
  const deadline = Date.now() + PROCESS_TIMEOUT_MS;
  let ended = false;
  void child.exited.then(() => {
    ended = true;
  });
  for (;;) {
    const line = child.lines.find((printed) => printed.startsWith(`${word} `));
    if (line !== undefined) return Number(line.slice(word.length + 1));
    if (ended || Date.now() > deadline) {
      throw new ErrandError("internal", `a bench worker process did not ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts `count` worker processes with `orders` and resolves once each takes runs. */
export async function startWorkerProcesses(
  count: number,
  orders: WorkerOrders,
): Promise<WorkerProcesses> {
  const children = Array.from({ length: count }, () => spawnChild(orders));
  const killAll = () => {
    for (const child of children) child.process.kill("SIGKILL");
  };
  let cpuAtReady: number[];
  try {
    cpuAtReady = await Promise.all(children.map((child) => numberAfter(child, "ready", "start")));
  } catch (error) {
    killAll();
    throw error;
  }
  return {
    pids: children.map((child) => child.process.pid ?? 0),
    async stop() {
      for (const child of children) child.process.kill("SIGTERM");
      try {
        const cpuAtStop = await Promise.all(
          children.map((child) => numberAfter(child, "cpu", "stop")),
        );
        await Promise.all(children.map((child) => child.exited));
        return cpuAtStop.reduce((sum, ms, i) => sum + ms - cpuAtReady[i]!, 0);
      } catch (error) {
        killAll();
        throw error;
      }
    },
  };
}
