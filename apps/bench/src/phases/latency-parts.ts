/**
 * The worker and the collector of the split latency phase, in a child
 * process of their own (`latency-parts-process.ts`), as a deployment runs
 * them apart from the producers that fire runs and wait for their results.
 */
import { benchEntry, lineAfter, spawnBenchChild } from "../bench-child.js";
import type { BenchTarget } from "../errand-stack.js";
import type { PartMilestones, ProcessFigures } from "../process-watch.js";
import type { WorkerOrders } from "../scaling/worker-processes.js";
import type { PartsReport } from "./latency-parts-process.js";

const ENTRY = benchEntry("latency-parts-process", import.meta.url);

/** The running process of the parts. */
export interface LatencyParts {
  /** Starts watching it (the clock of the phase starts). */
  watch(): void;
  /**
   * Stops it (its worker without grace) and resolves with what it saw since
   * {@link watch}: its event-loop delay and GC pauses, and when its worker
   * took each run's job and its collector read each run's events.
   */
  stop(): Promise<{ process: ProcessFigures; milestones: PartMilestones }>;
}

/** Starts the parts' process on `target` and resolves once its worker and collector run. */
export async function startLatencyParts(
  target: BenchTarget,
  concurrency: number,
): Promise<LatencyParts> {
  // Only what the child needs, as JSON (a BenchRedis carries a client and functions besides).
  const { url, durability, budget, shards, queueShards, workerMetrics } = target;
  const orders: WorkerOrders = {
    target: { url, durability, budget, shards, queueShards, workerMetrics },
    concurrency,
  };
  const child = spawnBenchChild(ENTRY, orders, url);
  try {
    await lineAfter(child, "ready", "start");
  } catch (error) {
    child.process.kill("SIGKILL");
    throw error;
  }
  return {
    watch() {
      child.process.stdin?.write("watch\n");
    },
    async stop() {
      child.process.kill("SIGTERM");
      try {
        const report = JSON.parse(await lineAfter(child, "parts", "stop")) as PartsReport;
        await child.exited;
        return {
          process: report.process,
          milestones: { takenAt: new Map(report.takenAt), readAt: new Map(report.readAt) },
        };
      } catch (error) {
        child.process.kill("SIGKILL");
        throw error;
      }
    },
  };
}
