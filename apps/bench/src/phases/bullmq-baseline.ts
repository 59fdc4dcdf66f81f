/**
 * Baseline: raw BullMQ. One queue, one worker at the bench's concurrency
 * whose processor does nothing, in this process; the jobs are added with
 * `addBulk` (batches of errand's `fireMany` size) while the worker runs, and
 * the clock stops when the worker has completed the last one. Each job is
 * configured as errand configures a run's job, so that what it costs is
 * BullMQ's share of a run: errand's job options (`DEFAULT_JOB_OPTIONS`:
 * attempts and backoff, completed jobs kept as `DEFAULT_KEEP_COMPLETED_JOBS`
 * says), a job id of its own (a UUID; a run's job id is its runId), a small return
 * value kept with the completed job (errand's worker returns the run's
 * outcome), and the worker's job locks (`DEFAULT_LOCK_DURATION_MS`,
 * `DEFAULT_STALLED_INTERVAL_MS`, `DEFAULT_MAX_STALLED_COUNT`). Around it, the
 * Redis commands it called (`INFO commandstats`, by name) and the CPU it spent.
 */
import { randomUUID } from "node:crypto";
import {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_MAX_STALLED_COUNT,
  DEFAULT_STALLED_INTERVAL_MS,
} from "@errand/engine";
import { DEFAULT_JOB_OPTIONS, MAX_FIRE_MANY } from "@errand/engine/ops";
import { Queue, Worker } from "bullmq";
import {
  type BenchRedis,
  type CommandsPerUnit,
  commandCalls,
  commandsPerUnit,
} from "../bench-redis.js";
import { type CpuPerUnit, cpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import { perSecond } from "../stats.js";

/** What the BullMQ baseline measured. */
export interface BullmqBaseline {
  /** Jobs added and completed per second, end to end. */
  jobsPerSec: number;
  /** Redis commands per job (`INFO commandstats` calls, commands inside BullMQ's scripts included). */
  commands: CommandsPerUnit;
  /** CPU per job. */
  cpu: CpuPerUnit;
}

const QUEUE = "bench-noop";

/** What each job returns: the size and shape of what errand's worker returns for a settled run. */
const JOB_RESULT = { kind: "settled", status: "succeeded" } as const;

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
  const worker = new Worker(QUEUE, async () => JOB_RESULT, {
    connection,
    concurrency,
    lockDuration: DEFAULT_LOCK_DURATION_MS,
    stalledInterval: DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: DEFAULT_MAX_STALLED_COUNT,
  });
  worker.on("completed", () => {
    completed += 1;
    if (completed === jobs) allCompleted();
  });
  try {
    await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
    const callsBefore = await commandCalls(redis.admin);
    const meter = await startCpuMeter(redis.admin);
    const start = performance.now();
    for (let first = 0; first < jobs; first += MAX_FIRE_MANY) {
      const size = Math.min(MAX_FIRE_MANY, jobs - first);
      await queue.addBulk(
        Array.from({ length: size }, (_, i) => ({
          name: "noop",
          data: { n: first + i },
          opts: { ...DEFAULT_JOB_OPTIONS, jobId: randomUUID() },
        })),
      );
    }
    await done;
    const elapsed = performance.now() - start;
    const spent = await meter.read();
    return {
      jobsPerSec: perSecond(jobs, elapsed),
      commands: commandsPerUnit(callsBefore, await commandCalls(redis.admin), jobs),
      cpu: cpuPerUnit(spent, jobs),
    };
  } finally {
    await worker.close();
    await queue.close();
  }
}
