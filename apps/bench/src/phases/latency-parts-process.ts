/**
 * The worker and the collector of the split latency phase, in a process of
 * their own (`latency-parts.ts` starts it): a collector, then a worker
 * running the bench agent, with the orders given as JSON in its first
 * argument. Once both run it prints `ready`. On a `watch` line on its
 * standard input it starts watching its event loop and GC pauses and
 * recording when its worker took each run's job and its collector read each
 * run's events; on SIGTERM it closes both and prints `parts <json>` (a
 * {@link PartsReport}), then exits 0.
 */
import { createInterface } from "node:readline";
import { startBenchCollector, startBenchWorker } from "../errand-stack.js";
import { type ProcessFigures, recordPartMilestones, watchProcess } from "../process-watch.js";
import type { WorkerOrders } from "../scaling/worker-processes.js";

/** What the process hands over when it stops: its figures and the milestones, as `[runId, epoch ms]` pairs. */
export interface PartsReport {
  process: ProcessFigures;
  takenAt: [string, number][];
  readAt: [string, number][];
}

const { target, concurrency } = JSON.parse(process.argv[2] ?? "{}") as WorkerOrders;
const collector = await startBenchCollector(target);
const worker = await startBenchWorker(target, concurrency);
/** Starts watching this process and recording the parts' milestones. */
const startWatching = () => ({ process: watchProcess(), parts: recordPartMilestones() });
let watching: ReturnType<typeof startWatching> | undefined;
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "watch") watching ??= startWatching();
});
process.stdout.write("ready 0\n");

process.once("SIGTERM", () => {
  const stopped = async () => {
    await worker.close({ graceMs: 0 });
    await collector.stop();
    // Never told to watch: an empty report.
    const watched = watching ?? startWatching();
    watched.parts.stop();
    const report: PartsReport = {
      process: watched.process.stop(),
      takenAt: [...watched.parts.milestones.takenAt],
      readAt: [...watched.parts.milestones.readAt],
    };
    process.stdout.write(`parts ${JSON.stringify(report)}\n`, () => process.exit(0));
  };
  stopped().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
});
