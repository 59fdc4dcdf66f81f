/**
 * `fire` while Redis is out of memory: refused with `redis_out_of_memory`
 * (retryable) and nothing left behind — no run key, no job — whether Redis
 * refuses the run's log or, a moment later, its job (the run is withdrawn,
 * leaves its parent's children and releases its idempotency key). A run
 * whose job can be neither enqueued nor taken back is not left queued
 * without a job: the reaper enqueues it, with its priority.
 */
import { isErrandError } from "@errand/core";
import { describe, expect } from "vitest";
import { createCollector } from "../collector/create-collector.js";
import { eventually } from "../collector/test-support/conditions.js";
import { createLogger } from "../logger.js";
import { createRunQueues, type RunJob, type RunQueues } from "../queues/run-queues.js";
import { closeConnection } from "../redis/connection.js";
import { openResources } from "../resources.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { exhaustRedisMemory } from "../test-support/redis-memory.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { fire } from "./fire.js";
import type { FireContext } from "./fire-context.js";
import { DEFAULT_MAX_INPUT_BYTES } from "./fire-spec.js";

const it = engineTest("fire-oom");

const logger = createLogger({ level: "silent" });

it.beforeAll(async ({ fx }) => {
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "writer" }], {
    queue: fx.queue.name,
  });
});

/** The keys of runs (logs, heads, blobs) under the fixture's prefix. */
async function runKeys(fx: EngineFixture): Promise<string[]> {
  return (await fx.redis.keys(`${fx.prefix}:{s*}:run:*`)).sort();
}

/**
 * A fire context on the fixture's Redis whose queues call `beforeAdd` with
 * the jobs about to be enqueued; `close` closes its connection.
 */
function fireContext(fx: EngineFixture, beforeAdd: (jobs: readonly RunJob[]) => Promise<void>) {
  const resources = openResources(
    { connection: fx.server.url, prefix: fx.prefix, logger },
    { name: "test commands", coalesceWrites: true },
  );
  const real = createRunQueues(resources.redis, resources.keys, logger);
  const queues: RunQueues = {
    ...real,
    async add(name, jobs) {
      await beforeAdd(jobs);
      await real.add(name, jobs);
    },
  };
  const context: FireContext = { ...resources, queues, maxInputBytes: DEFAULT_MAX_INPUT_BYTES };
  return {
    context,
    async close() {
      await real.close();
      await closeConnection(resources.redis);
    },
  };
}

describe("fire while Redis is out of memory", () => {
  it("is refused with redis_out_of_memory, retryable, and writes no run and no job; with room again it fires", async ({
    fx,
  }) => {
    const before = { keys: await runKeys(fx), jobs: (await fx.footprint()).jobs };
    const giveBack = await exhaustRedisMemory(fx.redis);
    try {
      const error = await fx.errand.fire({ agent: "writer", input: 1 }).catch((e: unknown) => e);
      expect(isErrandError(error, "redis_out_of_memory")).toBe(true);
      expect(error).toMatchObject({ retryable: true, details: undefined });
      expect((error as Error).message).toMatch(
        /^Redis is out of memory and refuses writes .*, so the run was not fired\. Try again once it has room: raise its maxmemory/,
      );

      const batch = await fx.errand.fireMany([
        { agent: "writer", input: 2 },
        { agent: "writer", input: 3 },
      ]);
      expect(batch).toMatchObject({ total: 2, succeeded: 0, failed: 2 });
      for (const item of batch.results) {
        expect(item).toEqual({
          ok: false,
          error: { code: "redis_out_of_memory", message: expect.any(String) },
          retryable: true,
        });
      }
    } finally {
      await giveBack();
    }
    expect(await runKeys(fx)).toEqual(before.keys);
    expect((await fx.footprint()).jobs).toEqual(before.jobs);

    const { runId } = await fx.errand.fire({ agent: "writer", input: 1 });
    expect(await fx.queue.getJobState(runId)).toBe("waiting");
  });

  it("takes back a run whose log was written when Redis then refuses its job: no run, no job, not among its parent's children, its key released", async ({
    fx,
  }) => {
    const { runId: parentRunId } = await fx.errand.fire({ agent: "writer", input: "parent" });
    const children = fx.errand.keys.children(parentRunId);
    const before = { keys: await runKeys(fx), jobs: (await fx.footprint()).jobs };
    let giveBack: (() => Promise<void>) | undefined;
    const attempted: string[] = [];
    const { context, close } = fireContext(fx, async (jobs) => {
      attempted.push(...jobs.map((job) => job.runId));
      // The run's log and its place among the children are written: Redis runs out now.
      expect(await fx.redis.zrange(children, 0, -1)).toEqual(jobs.map((job) => job.runId));
      giveBack = await exhaustRedisMemory(fx.redis);
    });
    try {
      const error = await fire(context, {
        agent: "writer",
        input: 1,
        parentRunId,
        idempotencyKey: "withdrawn",
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "redis_out_of_memory",
        retryable: true,
        details: undefined,
      });
      expect((error as Error).message).toMatch(
        /so the run was withdrawn \(its job could not be enqueued; nothing of it is left behind\) and firing it again is safe\./,
      );
    } finally {
      await giveBack?.();
      await close();
    }
    const [runId] = attempted as [string];
    expect(await fx.errand.store.readHead(runId)).toBeUndefined();
    expect(await fx.errand.store.readLog(runId)).toEqual([]);
    expect(await fx.queue.getJobState(runId)).toBe("unknown");
    expect(await fx.redis.zrange(children, 0, -1)).toEqual([]);
    expect(await runKeys(fx)).toEqual(before.keys);
    expect((await fx.footprint()).jobs).toEqual(before.jobs);
    expect(await fx.errand.store.readIdempotencyKey("withdrawn")).toBeUndefined();
    const again = await fx.errand.fire({ agent: "writer", input: 1, idempotencyKey: "withdrawn" });
    expect(again.deduplicated).toBeUndefined();
    expect(again.runId).not.toBe(runId);
  });

  it("leaves a run it can neither enqueue nor take back to the reaper, which enqueues its job", async ({
    fx,
  }) => {
    let giveBack: (() => Promise<void>) | undefined;
    const { context, close } = fireContext(fx, async () => {
      giveBack = await exhaustRedisMemory(fx.redis);
    });
    const cannotWithdraw: FireContext = {
      ...context,
      store: {
        ...context.store,
        withdrawRun: () => Promise.reject(new Error("the connection to Redis was lost")),
      },
    };
    let runId: string;
    try {
      const error = await fire(cannotWithdraw, { agent: "writer", input: 1, priority: 9 }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: "internal", retryable: true });
      expect((error as Error).message).toMatch(/nor taken back .*; it is enqueued later$/);
      runId = (error as { details: { runId: string } }).details.runId;
    } finally {
      await giveBack?.();
      await close();
    }
    expect(await fx.errand.store.readHead(runId)).toMatchObject({ seq: 1, status: "queued" });
    expect(await fx.queue.getJobState(runId)).toBe("unknown");

    const collector = createCollector({
      connection: fx.server.url,
      prefix: fx.prefix,
      blockMs: 100,
      logger,
      reaper: { intervalMs: 100, joblessAfterMs: 0 },
    });
    await collector.start();
    try {
      await eventually("the reaper to enqueue the jobless run", async () =>
        (await fx.queue.getJobState(runId)) === "prioritized" ? true : undefined,
      );
    } finally {
      await collector.stop();
    }
    expect(await fx.queue.getJob(runId)).toMatchObject({
      name: "writer",
      data: { runId },
      opts: { priority: 9 },
    });
  });
});
