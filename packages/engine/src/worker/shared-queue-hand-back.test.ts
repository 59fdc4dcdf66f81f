/**
 * Two run workers of an agent's two versions on one queue, each handing back
 * the runs of the other version (`other-versions.ts`), as a fleet evaluation
 * runs its candidate beside the live version. Against a real Redis: runs of
 * the second version fired at a steady rate, while the first version's
 * worker is idle, all finish on the second's worker.
 *
 * The trap this guards (docs/architecture/worker.md#how-a-job-reaches-the-worker):
 * a handed-back run is due again in 1 s, and only the workers that learn when
 * (from the delayed mark BullMQ's blocking read pops, or from a fetch made
 * after the hand-back) fetch it then. Were the worker that hands runs back to
 * block on the queue's mark before the other one each time (a run worker
 * that left out BullMQ's fetch straight after a job taken on a wake-up did:
 * this test then failed or took most of its bound), it alone would pop the
 * delayed mark and retake the run each second, and the mark its retake puts
 * back would wake the other worker only while the run is held: the run would
 * bounce for ever.
 */
import type { Logger } from "@errand/runtime";
import { uniqueKeyPrefix } from "@errand/testing";
import { type Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import type { RunJobData } from "../queues/job-data.js";
import { openJobsConnection } from "../redis/connection.js";
import { redisTest as it } from "../test-support/engine-test.js";
import { handBackJob } from "./other-versions.js";
import type { ProcessOutcome } from "./process-outcome.js";
import { RunWorker } from "./run-worker.js";

const SILENT_LOGGER: Logger = createLogger({ level: "silent" });
const RUNS = 16;
/** How long every run gets to finish: runs bounce for ever in the trap, each bounce takes 1 s. */
const FINISH_WITHIN_MS = 60_000;

/** A run worker of `version` on queue `q`: it finishes its own version's runs and hands back the others. */
function openVersionWorker(
  version: string,
  prefix: string,
  connection: Redis,
  finished: string[],
): RunWorker {
  const worker: RunWorker = new RunWorker(
    "q",
    async (job: Job<RunJobData>, token?: string): Promise<ProcessOutcome> => {
      const runVersion = job.data.runId.split("-")[0] ?? "";
      if (runVersion !== version) {
        await handBackJob(job, token, worker.scripts, SILENT_LOGGER, {
          run: runVersion,
          worker: version,
        });
      }
      finished.push(job.data.runId);
      return { kind: "settled" } as never;
    },
    { connection, prefix, concurrency: 8 },
    connection,
    SILENT_LOGGER,
  );
  return worker;
}

/** Resolves once `finished` holds `count` runs, or after {@link FINISH_WITHIN_MS}. */
async function untilFinished(finished: string[], count: number): Promise<void> {
  const deadline = Date.now() + FINISH_WITHIN_MS;
  while (finished.length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("two run workers of an agent's two versions on one queue", () => {
  it(
    "finish every run fired for the second version at a steady rate, the first version's worker idle",
    async ({ engineRedis }) => {
      const connection = openJobsConnection(engineRedis.url, {
        logger: SILENT_LOGGER,
        name: "jobs",
      }) as Redis;
      const prefix = uniqueKeyPrefix("hand-back");
      const queue = new Queue<RunJobData>("q", { connection, prefix });
      const finished: string[] = [];
      const workers = [
        openVersionWorker("v1", prefix, connection, finished),
        openVersionWorker("v2", prefix, connection, finished),
      ];
      try {
        await Promise.all(workers.map((worker) => worker.waitUntilReady()));
        const runIds = Array.from({ length: RUNS }, (_, index) => `v2-${index}`);
        for (const runId of runIds) {
          await queue.add("agent", { runId }, { jobId: runId });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await untilFinished(finished, RUNS);
        expect([...finished].sort()).toEqual([...runIds].sort());
      } finally {
        await Promise.all(workers.map((worker) => worker.close()));
        await queue.close();
        connection.disconnect();
      }
    },
    FINISH_WITHIN_MS + 30_000,
  );
});
