/**
 * What the queue keeps of a parent's children: a child a worker's run spawns
 * has its job removed as it completes (its result is in the store, for its
 * parent to collect), while the parent's own completed job is kept for
 * queue UIs, as any run's.
 */
import { waitUntil } from "@errand/testing";
import { describe, expect } from "vitest";
import { parentTest } from "../test-support/engine-test.js";
import type { SpawnResult } from "./spawn-children.js";
import { LEAD, spawnThreeThenCollect } from "./test-support/parent-fixture.js";

const it = parentTest("child-jobs");

describe("a spawned child's job", () => {
  it("is removed as it completes, where its parent's completed job is kept", async ({ pfx }) => {
    const { fx } = pfx;
    await pfx.startWorker({ parkRecheckMs: 120_000 });
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      input: spawnThreeThenCollect("collected"),
    });
    expect((await fx.waitForEvent(parent)).at(-1)?.type).toBe("finished");
    const [spawned] = (await pfx.toolResults(parent, "spawn_agents")) as SpawnResult[];
    const children = spawned!.results.map((item) => item.runId!);
    expect(children).toHaveLength(3);

    // A job's hash is `<prefix>:{queue…}:<queue>:<runId>`; a completed job kept has its finishedOn.
    const jobKeys = (runId: string) => fx.redis.keys(`${fx.prefix}:{queue*:${runId}`);
    const parentFinishedOn = await waitUntil(
      async () => {
        const [key] = await jobKeys(parent);
        return key === undefined
          ? undefined
          : ((await fx.redis.hget(key, "finishedOn")) ?? undefined);
      },
      { timeoutMs: 10_000 },
    );
    expect(Number(parentFinishedOn)).toBeGreaterThan(0);
    const childJobs = await waitUntil(
      async () => {
        const keys = (await Promise.all(children.map(jobKeys))).flat();
        return keys.length === 0 ? keys : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(childJobs).toEqual([]);
    // The children settled as any run: their results are in the store.
    const results = await Promise.all(children.map((child) => fx.errand.result(child)));
    expect(results.map((result) => result?.status)).toEqual([
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
  });
});
