/**
 * The worker processes of `errand bench --scaling`: real child processes of
 * Node (`worker-process.ts`), each a worker of its own on its own
 * connections, as a deployment runs them. From the built package they run
 * the built entry; from the sources (tests) the TypeScript one through tsx.
 */
import { type BenchChild, benchEntry, lineAfter, spawnBenchChild } from "../bench-child.js";
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

const ENTRY = benchEntry("worker-process", import.meta.url);

/** The number after `word` in `child`'s first line starting with it (see {@link lineAfter}). */
async function numberAfter(child: BenchChild, word: string, what: string): Promise<number> {
  return Number(await lineAfter(child, word, what));
}

/** Starts `count` worker processes with `orders` and resolves once each takes runs. */
export async function startWorkerProcesses(
  count: number,
  orders: WorkerOrders,
): Promise<WorkerProcesses> {
  const children = Array.from({ length: count }, () =>
    spawnBenchChild(ENTRY, orders, orders.target.url),
  );
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
