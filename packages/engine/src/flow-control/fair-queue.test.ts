/**
 * Fair queueing at fire time: a run with a concurrency key and no priority
 * of its own is enqueued with its place in its key's queue as its BullMQ
 * priority (round-robin across keys); a run with its own priority keeps it;
 * a run without a key has none; the key is logged in `run-queued`. A run the
 * reaper enqueues again keeps its place. A client with `fairQueueing: false`
 * enqueues first in, first out.
 */
import { describe, expect } from "vitest";
import { createErrand } from "../client/client.js";
import { createCollector } from "../collector/create-collector.js";
import { eventually } from "../collector/test-support/conditions.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";

const it = engineTest("fair-queue");

it.beforeAll(async ({ fx }) => {
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "tenanted" }], {
    queue: fx.queue.name,
  });
});

async function priorityOf(fx: EngineFixture, runId: string): Promise<number | undefined> {
  const job = await fx.queue.getJob(runId);
  expect(job).toBeDefined();
  return job?.opts.priority || undefined;
}

describe("fair queueing", () => {
  it("gives each run its place in its key's queue as its priority", async ({ fx }) => {
    const fired = await fx.errand.fireMany([
      ...Array.from({ length: 3 }, (_, n) => ({
        agent: "tenanted",
        input: { n },
        concurrencyKey: "big",
      })),
      { agent: "tenanted", input: "small 1", concurrencyKey: "small" },
      { agent: "tenanted", input: "own priority", concurrencyKey: "small", priority: 7 },
      { agent: "tenanted", input: "no key" },
    ]);
    const runIds = fired.results.map((result) => result.runId!);
    const [small] = await fx.errand
      .fireMany([{ agent: "tenanted", input: "small 2", concurrencyKey: "small" }])
      .then((again) => again.results.map((result) => result.runId!));

    const priorities = await Promise.all([...runIds, small!].map((runId) => priorityOf(fx, runId)));
    expect(priorities).toEqual([1, 2, 3, 1, 7, undefined, 2]);
    const [queued] = await fx.waitForEvent(runIds[0]!, () => true);
    expect(queued).toMatchObject({ type: "run-queued", data: { concurrencyKey: "big" } });
  });

  it("keeps a run's place when the reaper enqueues it again, left without a job", async ({
    fx,
  }) => {
    const fired = await fx.errand.fireMany(
      Array.from({ length: 3 }, (_, n) => ({
        agent: "tenanted",
        input: { n },
        concurrencyKey: "reaped",
      })),
    );
    const [first, second, third] = fired.results.map((result) => result.runId!);
    // Their producer died before enqueueing the jobs of the second and the third,
    // and the third before it joined its key's queue.
    await fx.queue.remove(second!);
    await fx.queue.remove(third!);
    await fx.redis.zrem(`${fx.prefix}:{flow}:fair:reaped`, third!);

    const collector = createCollector({
      connection: fx.server.url,
      prefix: fx.prefix,
      blockMs: 100,
      reaper: { intervalMs: 100, joblessAfterMs: 0 },
    });
    await collector.start();
    try {
      await eventually("the reaper to enqueue both", async () =>
        (await fx.queue.getJob(second!)) && (await fx.queue.getJob(third!)) ? true : undefined,
      );
    } finally {
      await collector.stop();
    }
    // The second is still the key's second; the third joins the key's queue at its back.
    expect(await priorityOf(fx, first!)).toBe(1);
    expect(await priorityOf(fx, second!)).toBe(2);
    expect(await priorityOf(fx, third!)).toBe(3);
  });

  it("enqueues first in, first out when the client is told not to", async ({ fx }) => {
    const fifo = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      fairQueueing: false,
    });
    try {
      const { runId } = await fifo.fire({
        agent: "tenanted",
        input: "fifo",
        concurrencyKey: "big",
      });
      expect(await priorityOf(fx, runId)).toBeUndefined();
    } finally {
      await fifo.close();
    }
  });
});
