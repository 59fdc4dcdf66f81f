/**
 * fireMany: per-item partial success in spec order; the valid runs are
 * logged and enqueued (their job id is their runId), the refused ones leave
 * nothing behind; children join their parent's tree.
 */
import { describe, expect } from "vitest";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import { createErrand } from "./client.js";

const it = engineTest("fire-many");

it.beforeAll(async ({ fx }) => {
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "writer", maxSteps: 3 }], {
    queue: fx.queue.name,
  });
});

describe("fireMany", () => {
  it("fires the valid specs and refuses the others, one result per spec in order", async ({
    fx,
  }) => {
    const before = await fx.footprint();
    const result = await fx.errand.fireMany([
      { agent: "writer", input: { n: 1 }, metadata: { batch: "b1" } },
      { agent: TEST_AGENTS.plain, input: { n: 2 } },
      { agent: "writer", input: { n: 3 }, deadlineMs: 60_000 },
      { agent: "writer", input: { n: 4 }, extra: true } as never,
    ]);

    expect(result).toMatchObject({ total: 4, succeeded: 2, failed: 2 });
    const [first, unknown, third, malformed] = result.results;
    expect(first).toEqual({ ok: true, runId: expect.any(String) });
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: "unknown_agent" },
      retryable: false,
    });
    expect(third).toEqual({ ok: true, runId: expect.any(String) });
    expect(malformed).toMatchObject({ ok: false, error: { code: "invalid_spec" } });
    expect(unknown).not.toHaveProperty("runId");

    const after = await fx.footprint();
    expect(after.jobs.waiting).toBe((before.jobs.waiting ?? 0) + 2);
    for (const [fired, n] of [
      [first, 1],
      [third, 3],
    ] as const) {
      const runId = fired!.runId!;
      const job = await fx.queue.getJob(runId);
      expect(job).toMatchObject({ id: runId, name: "writer", data: { runId } });
      const [queued] = await fx.errand.store.readLog(runId);
      expect(queued).toMatchObject({
        seq: 1,
        type: "run-queued",
        data: { agent: "writer", input: { n }, rootRunId: runId, depth: 0 },
      });
      expect(queued?.data).toMatchObject({ limits: { maxSteps: 3 } });
    }
    const [thirdQueued] = await fx.errand.store.readLog(third!.runId!);
    if (thirdQueued?.type !== "run-queued") throw new Error("the third run has no run-queued");
    const { deadlineAt = "" } = thirdQueued.data.limits;
    expect(Date.parse(deadlineAt) - Date.parse(thirdQueued.at)).toBe(60_000);
  });

  it("places children under their parent: rootRunId, depth and the parent's children set", async ({
    fx,
  }) => {
    const { runId: root } = await fx.errand.fire({ agent: "writer", input: "root" });
    const { results } = await fx.errand.fireMany([
      { agent: "writer", input: "a", parentRunId: root },
      { agent: "writer", input: "b", parentRunId: root },
    ]);
    const children = results.map((r) => r.runId!);
    const { runId: grandchild } = await fx.errand.fire({
      agent: "writer",
      input: "a1",
      parentRunId: children[0]!,
    });

    expect(await fx.redis.zrange(fx.errand.keys.children(root), 0, -1)).toEqual(
      [...children].sort(),
    );
    expect(await fx.redis.zrange(fx.errand.keys.children(children[0]!), 0, -1)).toEqual([
      grandchild,
    ]);
    const [queued] = await fx.errand.store.readLog(grandchild);
    expect(queued?.data).toMatchObject({ parentRunId: children[0], rootRunId: root, depth: 2 });
    // A parent still open keeps its children set for as long as it runs.
    expect(await fx.redis.ttl(fx.errand.keys.children(root))).toBe(-1);
    // Its head says it has children, so that the append settling it gives them its expiry.
    expect((await fx.errand.store.readHead(root))?.hasChildren).toBe(true);
    expect((await fx.errand.store.readHead(grandchild))?.hasChildren).toBe(false);
  });

  it("lets the children set of a parent that had settled expire with the retention", async ({
    fx,
  }) => {
    const { runId: parent } = await fx.errand.fire({ agent: "writer", input: "done" });
    await fx.errand.cancel(parent);
    expect((await fx.errand.store.readHead(parent))?.status).toBe("cancelled");
    const { runId: late } = await fx.errand.fire({
      agent: "writer",
      input: "late",
      parentRunId: parent,
    });

    const children = fx.errand.keys.children(parent);
    expect(await fx.redis.zrange(children, 0, -1)).toEqual([late]);
    const ttl = await fx.redis.ttl(children);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(fx.errand.store.retentionSeconds);
  });
});

describe("a run whose job cannot be enqueued", () => {
  it("is taken back (internal, retryable, no runId): no run and no job left behind", async ({
    fx,
  }) => {
    const broken = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      jobOptions: { priority: 1.5 }, // BullMQ refuses the job after the log was written
    });
    const runKeys = async () => (await fx.redis.keys(`${fx.prefix}:{s*}:run:*`)).sort();
    try {
      const before = { keys: await runKeys(), jobs: (await fx.footprint()).jobs };
      const error = await broken.fire({ agent: "writer", input: 1 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "internal", retryable: true, details: undefined });

      const batch = await broken.fireMany([
        { agent: "writer", input: 2 },
        { agent: "nobody", input: 3 },
      ]);
      expect(batch).toMatchObject({ total: 2, succeeded: 0, failed: 2 });
      expect(batch.results[0]).toMatchObject({ ok: false, error: { code: "internal" } });
      expect(batch.results[0]).not.toHaveProperty("runId");
      expect(await runKeys()).toEqual(before.keys);
      expect((await fx.footprint()).jobs).toEqual(before.jobs);
    } finally {
      await broken.close();
    }
  });
});
