/**
 * The fetch a run worker leaves out: after a fetch woken by the queue's
 * marker takes a job, the fetch BullMQ makes straight after it, but not the
 * one after a blocking read, nor any while a burst drains. Against a real
 * Redis: BullMQ's fetch that takes a job puts the marker back (what leaving
 * one out relies on); jobs arriving one at a time cost a run worker three
 * fetches each (BullMQ's `moveToActive`, and the one in `moveToFinished`)
 * where BullMQ's worker makes four, and every job of a burst is taken
 * without waiting out the blocking read.
 */
import { uniqueKeyPrefix } from "@errand/testing";
import { Queue, Worker, type WorkerOptions } from "bullmq";
import type { Redis } from "ioredis";
import { describe, expect, it as unit } from "vitest";
import { createLogger } from "../logger.js";
import type { RunJobData } from "../queues/job-data.js";
import { openJobsConnection } from "../redis/connection.js";
import { redisTest as it } from "../test-support/engine-test.js";
import { FetchAfterWake } from "./fetch-after-wake.js";
import { RunWorker } from "./run-worker.js";

const SILENT_LOGGER = createLogger({ level: "silent" });

describe("FetchAfterWake", () => {
  unit("leaves out the fetch straight after a woken one that took a job, and no other", () => {
    const fetches = new FetchAfterWake();
    expect(fetches.leaveOut(true)).toBe(false);
    fetches.made(true, true);
    expect(fetches.leaveOut(false)).toBe(true);
    expect(fetches.leaveOut(true)).toBe(false);
    fetches.made(true, false);
    expect(fetches.leaveOut(false)).toBe(false);
  });

  unit(
    "keeps BullMQ's fetches in a burst: a woken fetch after a left-out one that takes a job",
    () => {
      const fetches = new FetchAfterWake();
      fetches.made(true, true);
      expect(fetches.leaveOut(false)).toBe(true);
      expect(fetches.leaveOut(true)).toBe(false);
      fetches.made(true, true);
      expect(fetches.leaveOut(false)).toBe(false);
      fetches.made(false, true);
      expect(fetches.leaveOut(false)).toBe(false);
    },
  );

  unit(
    "makes the fetch a blocking read woke to, even straight after a woken one that took a job",
    () => {
      const fetches = new FetchAfterWake();
      fetches.made(true, true);
      expect(fetches.leaveOut(true)).toBe(false);
      fetches.made(true, false);
      expect(fetches.leaveOut(false)).toBe(false);
    },
  );
});

/** The calls of `command` the server counted so far (`INFO commandstats`; inside scripts too). */
async function calls(redis: Redis, command: string): Promise<number> {
  const stats = await redis.info("commandstats");
  const counted = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m").exec(stats);
  return Number(counted?.[1] ?? 0);
}

/** Resolves once a client of the server is blocked (a worker waiting on its queue's marker). */
async function untilBlocked(redis: Redis): Promise<void> {
  while (!/^blocked_clients:[1-9]/m.test(await redis.info("clients"))) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves once `worker` completed `count` jobs. */
function completed(worker: Worker, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    worker.on("completed", () => {
      seen += 1;
      if (seen === count) resolve();
    });
  });
}

type WorkerKind = "run worker" | "BullMQ worker";

/** Opens a worker of `kind` on queue `name` under `prefix`, whose jobs complete at once. */
function openWorker(
  kind: WorkerKind,
  name: string,
  options: WorkerOptions,
  connection: Redis,
): Worker<RunJobData> {
  const processor = async () => ({ kind: "settled" }) as never;
  return kind === "run worker"
    ? new RunWorker(name, processor, options, connection, SILENT_LOGGER)
    : new Worker<RunJobData>(name, processor, options);
}

/**
 * The fetches a worker of `kind` at `concurrency` makes to take a burst of
 * jobs added while it blocks, once it blocks again; it expects every job
 * completed. A lost wake-up would leave a job waiting for the whole blocking
 * read (`drainDelay`): 10 minutes.
 */
async function fetchesOfBurst(
  url: string,
  redis: Redis,
  kind: WorkerKind,
  concurrency: number,
): Promise<number> {
  const jobs = 30;
  const connection = openJobsConnection(url, { logger: SILENT_LOGGER, name: "jobs" });
  const prefix = uniqueKeyPrefix("fetch-burst");
  const queue = new Queue<RunJobData>("q", { connection, prefix });
  const worker = openWorker(
    kind,
    "q",
    { connection, prefix, concurrency, drainDelay: 600 },
    connection as Redis,
  );
  try {
    await worker.waitUntilReady();
    await untilBlocked(redis);
    const fetchesBefore = await calls(redis, "rpoplpush");
    const done = completed(worker, jobs);
    await queue.addBulk(
      Array.from({ length: jobs }, (_, index) => ({
        name: "agent",
        data: { runId: `r${index}` },
        opts: { jobId: `r${index}` },
      })),
    );
    await done;
    await untilBlocked(redis);
    expect(await queue.getJobCounts("wait", "active", "completed")).toEqual({
      wait: 0,
      active: 0,
      completed: jobs,
    });
    return (await calls(redis, "rpoplpush")) - fetchesBefore;
  } finally {
    await worker.close();
    await queue.close();
    connection.disconnect();
  }
}

describe("a run worker's fetches", () => {
  it("rests on BullMQ putting the marker back when a fetch takes a job", async ({
    engineRedis,
  }) => {
    const connection = openJobsConnection(engineRedis.url, { logger: SILENT_LOGGER, name: "jobs" });
    const prefix = uniqueKeyPrefix("fetch-marker");
    const queue = new Queue<RunJobData>("q", { connection, prefix });
    const worker = openWorker(
      "run worker",
      "q",
      { connection, prefix, autorun: false },
      connection as Redis,
    );
    try {
      await queue.add("agent", { runId: "r1" }, { jobId: "r1" });
      const marker = `${prefix}:q:marker`;
      expect(await engineRedis.redis.zpopmin(marker)).toEqual(["0", "0"]);
      const job = await worker.getNextJob("token", { block: false });
      expect(job?.id).toBe("r1");
      expect(await engineRedis.redis.zrange(marker, 0, -1)).toEqual(["0"]);
    } finally {
      await worker.close();
      await queue.close();
      connection.disconnect();
    }
  });

  it.for<[WorkerKind, number]>([
    ["BullMQ worker", 4],
    ["run worker", 3],
  ])(
    "costs a %s %d fetches a job when jobs arrive one at a time",
    async ([kind, fetchesAJob], { engineRedis }) => {
      const jobs = 10;
      const connection = openJobsConnection(engineRedis.url, {
        logger: SILENT_LOGGER,
        name: "jobs",
      });
      const prefix = uniqueKeyPrefix("fetch-steady");
      const queue = new Queue<RunJobData>("q", { connection, prefix });
      const worker = openWorker(
        kind,
        "q",
        {
          connection,
          prefix,
          concurrency: 4,
        },
        connection as Redis,
      );
      try {
        await worker.waitUntilReady();
        await untilBlocked(engineRedis.redis);
        const fetchesBefore = await calls(engineRedis.redis, "rpoplpush");
        const readsBefore = await calls(engineRedis.redis, "bzpopmin");
        for (let index = 0; index < jobs; index += 1) {
          const done = completed(worker, 1);
          await queue.add("agent", { runId: `r${index}` }, { jobId: `r${index}` });
          await done;
          await untilBlocked(engineRedis.redis);
        }
        expect(await calls(engineRedis.redis, "rpoplpush")).toBe(
          fetchesBefore + jobs * fetchesAJob,
        );
        expect(await calls(engineRedis.redis, "bzpopmin")).toBe(readsBefore + jobs * 2);
      } finally {
        await worker.close();
        await queue.close();
        connection.disconnect();
      }
    },
  );

  it.for([1, 4])(
    "takes every job of a burst at concurrency %d, without waiting out its blocking read, in no more fetches than BullMQ's worker",
    { timeout: 120_000 },
    async (concurrency, { engineRedis }) => {
      const burst = (kind: WorkerKind) =>
        fetchesOfBurst(engineRedis.url, engineRedis.redis, kind, concurrency);
      expect(await burst("run worker")).toBeLessThanOrEqual(await burst("BullMQ worker"));
    },
  );
});
