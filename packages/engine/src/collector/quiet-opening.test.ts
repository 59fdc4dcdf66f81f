import { type EventDataOf, type EventType, foldRun, type NewEvent, settleRun } from "@errand/core";
import { storedResultJson } from "@errand/store/ops";
import { describe, expect } from "vitest";
import { redisTest } from "../test-support/engine-test.js";
import { createCollector } from "./create-collector.js";
import { eventually } from "./test-support/conditions.js";
import { TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

let tick = 0;
function event<T extends EventType>(type: T, data: EventDataOf<T>): NewEvent {
  tick += 1;
  return { type, at: new Date(Date.UTC(2026, 0, 1) + tick).toISOString(), data } as NewEvent;
}

describe("a quietly opened run", () => {
  it("settles with its log's fold from the summary the append after its opening carries, its log unread: a step, and a cancel before it started", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("quiet-opening");
    const [stepped, cancelledChild] = [store.newRunId(), store.newRunId()];
    await store.appendEvents(stepped, 0, [
      event("run-queued", {
        agent: "researcher",
        input: { question: "tides?" },
        rootRunId: stepped,
        depth: 0,
        limits: { maxSteps: 4 },
        metadata: { team: "ocean" },
        tenant: "acme",
      }),
    ]);
    await store.appendEvents(cancelledChild, 0, [
      event("run-queued", {
        agent: "writer",
        input: "draft",
        outputSchema: { type: "object" },
        parentRunId: stepped,
        rootRunId: stepped,
        depth: 1,
        limits: { maxSteps: 2 },
        metadata: {},
        tenant: "acme",
      }),
    ]);
    // The child is cancelled before any worker started it (unfenced, as a client's cancel).
    await store.appendEvents(cancelledChild, "any", [
      event("cancel-requested", { reason: "not needed", by: "client" }),
    ]);
    await store.appendEvents(cancelledChild, 2, [event("cancelled", {})]);
    await store.appendEvents(stepped, 1, [
      event("run-started", { attempt: 1, workerId: "worker-1" }),
      event("model-responded", {
        step: 1,
        text: "the moon",
        calls: [],
        usage: { inputTokens: 7, outputTokens: 2 },
        finish: "stop",
      }),
      event("finished", { text: "the moon" }),
    ]);

    const monitor = await fx.connect().monitor();
    const commands: string[] = [];
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      if (source !== "lua") commands.push(String(args[0]).toLowerCase());
    });
    const collector = createCollector({
      connection: fx.url,
      prefix,
      shards: TEST_SHARDS,
      blockMs: 100,
      reaper: false,
    });
    await collector.start();
    const runIds = [stepped, cancelledChild];
    try {
      await eventually("both results stored", async () => {
        const stored = await Promise.all(
          runIds.map((runId) => fx.redis.exists(keys.result(runId))),
        );
        return stored.every((exists) => exists === 1) || undefined;
      });
    } finally {
      await collector.stop();
      monitor.disconnect();
    }
    expect(commands).not.toContain("xrange");
    for (const runId of runIds) {
      const result = settleRun(foldRun(await store.readLog(runId), runId));
      expect(await fx.redis.get(keys.result(runId))).toBe(storedResultJson(result!));
    }
    expect(JSON.parse((await fx.redis.get(keys.result(cancelledChild)))!)).toMatchObject({
      status: "cancelled",
      parentRunId: stepped,
      tenant: "acme",
    });
  });
});
