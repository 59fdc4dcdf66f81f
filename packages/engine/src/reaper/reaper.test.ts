import { shardOfRunId } from "@errand/core/ops";
import { Queue, Worker } from "bullmq";
import { afterAll, describe, expect } from "vitest";
import { createCollector } from "../collector/create-collector.js";
import {
  besides,
  startTestProcess,
  type TestProcess,
} from "../collector/test-support/child-process.js";
import { eventually } from "../collector/test-support/conditions.js";
import { planRuns, writeRuns } from "../collector/test-support/planned-runs.js";
import {
  type EngineRedisFixture,
  type PrefixedStore,
  TEST_SHARDS,
} from "../collector/test-support/redis-fixture.js";
import { createRunReads, type RunReads } from "../reads/create-run-reads.js";
import { redisTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { createReaper } from "./create-reaper.js";

const it = redisTest;

const HOLDING_WORKER = besides(import.meta.url, "./test-support/holding-worker-process.ts");

const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The queue of the planned runs' agents in these tests. */
const TEST_QUEUE = "reaper-test";

/** The test queue, registered as the one serving the planned runs' agents. */
async function openQueue(fx: EngineRedisFixture, scope: PrefixedStore): Promise<Queue> {
  const agents = [{ name: "researcher" }, { name: "writer" }];
  await registerTestQueue(fx.redis, scope.keys, agents, { queue: TEST_QUEUE });
  const queue = new Queue(TEST_QUEUE, {
    connection: fx.connect(),
    prefix: scope.keys.bullmqPrefix,
  });
  cleanups.push(() => queue.close());
  return queue;
}

function openWorker(
  fx: EngineRedisFixture,
  scope: PrefixedStore,
  processor: (jobId: string) => Promise<void>,
  options: { maxStalledCount?: number; stalledInterval?: number } = {},
): Worker {
  const worker = new Worker(TEST_QUEUE, (job) => processor(job.id ?? ""), {
    connection: fx.connect(),
    prefix: scope.keys.bullmqPrefix,
    ...options,
  });
  cleanups.push(() => worker.close());
  return worker;
}

/**
 * The planned runs stand for runs whose jobs these tests add (or not) on
 * purpose, months ago: the reaper leaves them jobless.
 */
const NEVER_JOBLESS_MS = 10 * 365 * 24 * 3_600_000;

/** A collector with its reaper, and reads, on `scope`. */
async function startCollecting(fx: EngineRedisFixture, scope: PrefixedStore) {
  const collector = createCollector({
    connection: fx.url,
    prefix: scope.prefix,
    shards: TEST_SHARDS,
    blockMs: 100,
    reaper: { intervalMs: 100, joblessAfterMs: NEVER_JOBLESS_MS },
  });
  await collector.start();
  cleanups.push(() => collector.stop());
  const reads = createRunReads({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
  cleanups.push(() => reads.close());
  return reads;
}

/** A parent's children, none settled unless `endings` says so. */
async function family(scope: PrefixedStore, seed: string, children: number, deadlineAt?: string) {
  const runs = planRuns({
    count: children + 1,
    shards: TEST_SHARDS,
    parents: 1,
    seed,
    endings: ["unsettled"],
    ...(deadlineAt === undefined ? {} : { deadlineAt }),
  });
  await writeRuns(scope.store, runs);
  return { children: runs.slice(1).map((run) => run.runId) };
}

/** The parent's children as collecting them reads them: runId and status. */
async function collectedChildren(reads: RunReads, children: readonly string[]) {
  const batch = await reads.collect(children);
  return batch.results.map(({ runId, status }) => ({ runId, status }));
}

describe("the reaper", () => {
  it("settles as worker_lost the run whose worker was SIGKILLed and whose job then stalled for good; the parent gets it", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("reaper-lost");
    const { children } = await family(scope, "reaper-lost", 1);
    const child = children[0]!;
    const queue = await openQueue(fx, scope);
    await queue.add("researcher", { runId: child }, { jobId: child, attempts: 1 });

    const holder: TestProcess = startTestProcess(HOLDING_WORKER, [
      JSON.stringify({
        url: fx.url,
        bullmqPrefix: scope.keys.bullmqPrefix,
        queue: TEST_QUEUE,
        lockDurationMs: 500,
      }),
    ]);
    cleanups.push(() => holder.kill("SIGKILL"));
    await holder.line((line) => line === `active ${child}`);
    await holder.kill("SIGKILL");

    // Another worker's stalled-job check finds the job's lock gone; with
    // maxStalledCount 0 BullMQ fails it for good instead of running it again.
    const ranAgain: string[] = [];
    openWorker(fx, scope, async (jobId) => void ranAgain.push(jobId), {
      maxStalledCount: 0,
      stalledInterval: 100,
    });

    const reads = await startCollecting(fx, scope);
    const result = await reads.result(child, { waitMs: 30_000 });
    expect(result?.status).toBe("failed");
    expect(result?.error).toMatchObject({ code: "worker_lost", retryable: true });
    expect(result?.error?.message).toMatch(/stalled more than allowable limit/);
    expect((await queue.getJob(child))?.failedReason).toMatch(/stalled more than allowable limit/);
    expect(ranAgain).toEqual([]);
    expect(await collectedChildren(reads, children)).toEqual([{ runId: child, status: "failed" }]);
  }, 300_000);

  it("settles as internal the run whose job failed for its own reason, and leaves a settled run's ending alone", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("reaper-internal");
    const { children } = await family(scope, "reaper-internal", 2);
    const [broken, done] = children as [string, string];
    await scope.store.appendEvents(done, "any", [
      { type: "finished", at: "2026-03-01T00:00:30.000Z", data: { text: "all done" } },
    ]);
    const queue = await openQueue(fx, scope);
    const failedTwice = new Promise<void>((resolve) => {
      let failures = 0;
      openWorker(fx, scope, async () => {
        throw new Error("the tool exploded");
      }).on("failed", () => {
        failures += 1;
        if (failures === 2) resolve();
      });
    });
    await queue.add("researcher", { runId: broken }, { jobId: broken, attempts: 1 });
    await queue.add("researcher", { runId: done }, { jobId: done, attempts: 1 });
    await failedTwice;

    const reads = await startCollecting(fx, scope);
    const result = await reads.result(broken, { waitMs: 30_000 });
    expect(result?.error).toMatchObject({ code: "internal", retryable: false });
    expect(result?.error?.message).toMatch(/the tool exploded/);
    const settled = await reads.result(done, { waitMs: 30_000 });
    expect(settled).toMatchObject({ status: "succeeded", text: "all done" });
    expect((await scope.store.readLog(done)).map((event) => event.type).at(-1)).toBe("finished");
    const collected = await collectedChildren(reads, [broken, done]);
    expect(collected.map((entry) => entry.status)).toEqual(["failed", "succeeded"]);
  });

  it("settles as deadline_exceeded a run past its deadline: its job is removed, its worker told to cancel, its parent told", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("reaper-deadline");
    const past = "2026-01-01T00:00:00.000Z";
    const { children } = await family(scope, "reaper-deadline", 2, past);
    const [late, waiting] = children as [string, string];
    const onTime = planRuns({
      count: 1,
      shards: TEST_SHARDS,
      seed: "reaper-on-time",
      endings: ["text"],
      deadlineAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await writeRuns(scope.store, onTime);
    const queue = await openQueue(fx, scope);
    await queue.add("researcher", { runId: waiting }, { jobId: waiting });

    const cancels: string[] = [];
    const subscriber = fx.connect();
    subscriber.on("message", (_channel: string, runId: string) => cancels.push(runId));
    await subscriber.subscribe(scope.keys.cancelChannel);

    const reads = await startCollecting(fx, scope);
    const batch = await reads.collect([late, waiting, onTime[0]!.runId], { waitMs: 30_000 });
    expect(batch.results.map(({ status, error }) => ({ status, code: error?.code }))).toEqual([
      { status: "failed", code: "deadline_exceeded" },
      { status: "failed", code: "deadline_exceeded" },
      { status: "succeeded", code: undefined },
    ]);
    expect(batch.results[0]?.retryable).toBe(false);
    // The reaper removes the job and publishes the cancels after appending `failed`,
    // so a reader woken by the collector may get there first: wait for them.
    await eventually("the waiting job removed", async () =>
      (await queue.getJob(waiting)) === undefined ? true : undefined,
    );
    await eventually("both cancels published", async () =>
      cancels.length >= 2 ? true : undefined,
    );
    expect(cancels.sort()).toEqual([late, waiting].sort());
    const collected = await collectedChildren(reads, [late, waiting]);
    expect(collected.every((entry) => entry.status === "failed")).toBe(true);
    const shards = Array.from({ length: TEST_SHARDS }, (_, shard) => shard);
    await eventually("the deadlines emptied", async () => {
      const counts = await Promise.all(shards.map((s) => fx.redis.zcard(scope.keys.deadlines(s))));
      return counts.every((count) => count === 0) ? true : undefined;
    });
  });

  it("leaves a run that settled before its deadline came due as it was", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("reaper-settled");
    const [run] = planRuns({
      count: 1,
      shards: TEST_SHARDS,
      seed: "reaper-settled",
      endings: ["text"],
    });
    await writeRuns(scope.store, [run!]);
    const shard = shardOfRunId(run!.runId);
    await fx.redis.zadd(scope.keys.deadlines(shard), 1, run!.runId);
    const logBefore = await scope.store.readLog(run!.runId);

    const reaper = createReaper({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
    try {
      expect(await reaper.reapOnce()).toEqual({
        failedJobs: 0,
        deadlineExceeded: 0,
        joblessEnqueued: 0,
        versionUnavailable: 0,
      });
    } finally {
      await reaper.stop();
    }
    expect(await scope.store.readLog(run!.runId)).toEqual(logBefore);
    expect(await fx.redis.zcard(scope.keys.deadlines(shard))).toBe(0);
  });
});
