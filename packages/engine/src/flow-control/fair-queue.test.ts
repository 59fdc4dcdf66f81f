/**
 * Fair queueing at fire time: a run with a concurrency key and no priority
 * of its own is enqueued with its place in its key's queue as its BullMQ
 * priority (round-robin across keys); a run with its own priority keeps it;
 * a run without a key has none; the key is logged in `run-queued`. A client
 * with `fairQueueing: false` enqueues first in, first out.
 */
import { describe, expect } from "vitest";
import { createErrand } from "../client/client.js";
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
