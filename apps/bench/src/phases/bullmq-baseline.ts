/**
 * Baseline: raw BullMQ. One queue, one worker at the bench's concurrency
 * whose processor does nothing, in this process; the jobs are added with
 * `addBulk` (batches of errand's `fireMany` size) while the worker runs, and
 * the clock stops when the worker has completed the last one. Jobs use
 * errand's own job options (`DEFAULT_JOB_OPTIONS`: completed jobs kept as
 * `DEFAULT_KEEP_COMPLETED_JOBS` says), so both pay the same retention.
 */
import { DEFAULT_JOB_OPTIONS, MAX_FIRE_MANY } from "@errand/engine";
import { Queue, Worker } from "bullmq";
import type { BenchRedis } from "../bench-redis.js";
import { type CpuPerUnit, cpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import { perSecond } from "../stats.js";

/** What the BullMQ baseline measured. */
export interface BullmqBaseline {
  /** Jobs added and completed per second, end to end. */
  jobsPerSec: number;
  /** CPU per job. */
  cpu: CpuPerUnit;
}

const QUEUE = "bench-noop";

/** Runs `jobs` no-op jobs through one worker at `concurrency`. */
export async function measureBullmq(
  redis: BenchRedis,
  jobs: number,
  concurrency: number,
): Promise<BullmqBaseline> {
  await redis.flush();
  const connection = { host: redis.host, port: redis.port, maxRetriesPerRequest: null };
  const queue = new Queue(QUEUE, { connection });
  let completed = 0;
  let allCompleted: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allCompleted = resolve;
  });
  const worker = new Worker(QUEUE, async () => undefined, { connection, concurrency });
  worker.on("completed", () => {
    completed += 1;
    if (completed === jobs) allCompleted();
  });
  try {
    await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
    const meter = await startCpuMeter(redis.admin);
    const start = performance.now();
    for (let first = 0; first < jobs; first += MAX_FIRE_MANY) {
      const size = Math.min(MAX_FIRE_MANY, jobs - first);
      await queue.addBulk(
        Array.from({ length: size }, (_, i) => ({
          name: "noop",
          data: { n: first + i },
          opts: DEFAULT_JOB_OPTIONS,
        })),
      );
    }
    await done;
    const elapsed = performance.now() - start;
    return { jobsPerSec: perSecond(jobs, elapsed), cpu: cpuPerUnit(await meter.read(), jobs) };
  } finally {
    await worker.close();
    await queue.close();
  }
}
