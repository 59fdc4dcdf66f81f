/**
 * Priorities on real BullMQ: with one worker slot, a run fired with a
 * higher priority (a lower number) after many others starts before them,
 * and runs of one priority start in the order they were fired (read from
 * the logs' `run-started`); an orphaned job adopted by another worker's
 * queue keeps its priority.
 */
import { MAX_RUN_PRIORITY, type RunEvent } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { PRIORITY_LIMIT } from "bullmq";
import { describe, expect } from "vitest";
import { eventually } from "../collector/test-support/conditions.js";
import { createLogger } from "../logger.js";
import { createRunQueues, DEFAULT_JOB_OPTIONS } from "../queues/run-queues.js";
import { closeConnection } from "../redis/connection.js";
import { openResources } from "../resources.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { startAdoption } from "./adopt-orphans.js";
import { createWorker } from "./create-worker.js";

const it = engineTest("priorities");

const LOW_PRIORITY = 1_000;
const HIGH_PRIORITY = 1;
const LOW_RUNS = 50;

const logger = createLogger({ level: "silent" });

/** When `runId` started, from its log's first `run-started`, once it settled. */
async function startedAt(fx: EngineFixture, runId: string): Promise<string> {
  const events = await fx.waitForEvent(runId);
  const started = events.find((event: RunEvent) => event.type === "run-started");
  if (started === undefined) throw new Error(`run ${runId} settled without starting`);
  return started.at;
}

describe("priorities", () => {
  it("go as far as BullMQ's own limit", () => {
    expect(MAX_RUN_PRIORITY).toBe(PRIORITY_LIMIT);
  });

  it(`with one slot, a high-priority run fired after ${LOW_RUNS} low ones starts before them`, async ({
    fx,
  }) => {
    const agent = defineAgent({
      name: "ranked",
      instructions: "Say done.",
      model: scriptedModel(),
      script: [{ say: "done" }],
    });
    const queue = await registerTestQueue(fx.redis, fx.errand.keys, [{ name: agent.name }]);
    const low = await fx.errand.fireMany(
      Array.from({ length: LOW_RUNS }, (_, index) => ({
        agent: agent.name,
        input: { index },
        priority: LOW_PRIORITY,
      })),
    );
    expect(low.succeeded).toBe(LOW_RUNS);
    const high = await fx.errand.fire({
      agent: agent.name,
      input: "urgent",
      priority: HIGH_PRIORITY,
    });

    const worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [agent],
      concurrency: 1,
      logger,
    });
    try {
      expect(worker.queue).toBe(queue);
      const highStarted = await startedAt(fx, high.runId);
      const lowStarted = await Promise.all(low.results.map((item) => startedAt(fx, item.runId!)));
      for (const at of lowStarted) expect(highStarted < at).toBe(true);
      // One priority: first fired, first started.
      expect([...lowStarted].sort()).toEqual(lowStarted);
    } finally {
      await worker.close({ graceMs: 1_000 });
    }
    const events = await fx.errand.store.readLog(high.runId);
    expect(events[0]).toMatchObject({ type: "run-queued", data: { priority: HIGH_PRIORITY } });
  });

  it("keeps an orphaned job's priority when a live worker adopts it", async ({ fx }) => {
    const resources = openResources(
      { connection: fx.server.url, prefix: fx.prefix, logger },
      { name: "test adoption" },
    );
    const longAgo = new Date(Date.now() - 24 * 60 * 60 * 1_000).toISOString();
    const orphaned = await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "orphan" }], {
      lastSeenAt: longAgo,
    });
    const fired = await fx.errand.fireMany([
      { agent: "orphan", input: 1, priority: 5 },
      { agent: "orphan", input: 2 },
    ]);
    const [prioritized, plain] = fired.results.map((item) => item.runId!);
    const queuesRedis = fx.redis.duplicate();
    const queues = createRunQueues(queuesRedis, fx.errand.keys, logger);
    const adopterQueue = `${fx.prefix}.orphan,adopter`;
    const [adopter] = queues.shardsOf(adopterQueue);
    const [from] = queues.shardsOf(orphaned);
    if (adopter === undefined || from === undefined) throw new Error("a queue has one shard");
    const adoption = startAdoption(
      {
        ...resources,
        queue: adopterQueue,
        queues,
        agents: new Set(["orphan"]),
        jobOptions: DEFAULT_JOB_OPTIONS,
      },
      60_000,
    );
    try {
      await eventually("both runs adopted", async () =>
        (await adopter.count()) === 2 ? true : undefined,
      );
      expect((await adopter.getJob(prioritized!))?.opts.priority).toBe(5);
      expect(await adopter.getJobState(prioritized!)).toBe("prioritized");
      expect((await adopter.getJob(plain!))?.opts.priority).toBeFalsy();
      expect(await from.count()).toBe(0);
    } finally {
      await adoption.stop();
      await queues.close();
      await Promise.all([closeConnection(queuesRedis), closeConnection(resources.redis)]);
    }
  });
});
