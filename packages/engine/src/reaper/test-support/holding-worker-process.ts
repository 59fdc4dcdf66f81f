/**
 * A BullMQ worker in a process of its own that takes one job and holds it
 * forever, for tests that kill a worker while it holds a run's job.
 * Argument: JSON `{ url, bullmqPrefix, queue, lockDurationMs }`. Prints
 * `ready` once it listens and `active <jobId>` when it takes a job.
 * Test-only: not exported.
 */
import { Worker } from "bullmq";
import { Redis } from "ioredis";

const { url, bullmqPrefix, queue, lockDurationMs } = JSON.parse(process.argv[2] ?? "{}") as {
  url: string;
  bullmqPrefix: string;
  queue: string;
  lockDurationMs: number;
};

const worker = new Worker(
  queue,
  (job) => {
    process.stdout.write(`active ${job.id}\n`);
    return new Promise<never>(() => {});
  },
  {
    connection: new Redis(url, { maxRetriesPerRequest: null }),
    prefix: bullmqPrefix,
    lockDuration: lockDurationMs,
    concurrency: 1,
    // The test's other worker checks for stalled jobs: this one must not
    // claim the check (BullMQ lets one worker check per stalledInterval).
    skipStalledCheck: true,
  },
);
await worker.waitUntilReady();
process.stdout.write("ready\n");
