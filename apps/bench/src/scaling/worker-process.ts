/**
 * One worker process of `errand bench --scaling`: a worker running the bench
 * agent with the orders given as JSON in its first argument. Once its worker
 * takes runs it prints `ready <ms>`; on SIGTERM it closes the worker (no
 * grace), prints `cpu <ms>` and exits 0 — each `<ms>` the CPU it spent so far.
 */
import { nodeCpuMs } from "../cpu-meter.js";
import { startBenchWorker } from "../errand-stack.js";
import type { WorkerOrders } from "./worker-processes.js";

const { target, concurrency } = JSON.parse(process.argv[2] ?? "{}") as WorkerOrders;
const worker = await startBenchWorker(target, concurrency);
process.stdout.write(`ready ${nodeCpuMs()}\n`);
process.once("SIGTERM", () => {
  worker.close({ graceMs: 0 }).then(
    () => process.stdout.write(`cpu ${nodeCpuMs()}\n`, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
});
