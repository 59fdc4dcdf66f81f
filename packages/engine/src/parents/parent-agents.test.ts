/**
 * A parent agent with 200 children, end to end on a real worker and a real
 * collector: the scripted parent spawns them (recorded at once, invalid then
 * recorded, finished without recording, a slow one the test cancels once it
 * started, a refused model request), collects them with `wait` — parking
 * until every one has a stored result, woken once — and records its summary.
 * The test pages through the children itself and checks each one against
 * the plan, and the parent's view against its own.
 */
import type { RunEvent } from "@errand/core";
import { describe, expect } from "vitest";
import { z } from "zod";
import type { CollectResult } from "../reads/collect.js";
import type { CollectedRun } from "../reads/collected-run.js";
import { parentTest } from "../test-support/engine-test.js";
import type { SpawnResult } from "./spawn-children.js";
import { LEAD, type ParentFixture } from "./test-support/parent-fixture.js";
import { expectedCounts, planChildren } from "./test-support/planned-children.js";

const it = parentTest("parent-200");

const CHILDREN = 200;
const Summary = z.object({
  total: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});

/** Every child's result, read through the client a page of 50 at a time, and each page's counts. */
async function collectInPages(pfx: ParentFixture, runIds: readonly string[]) {
  const results: CollectedRun[] = [];
  const pageCounts: Record<string, number>[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page: CollectResult = await pfx.fx.errand.collect(runIds, {
      limit: 50,
      ...(cursor === undefined ? {} : { cursor }),
    });
    results.push(...page.results);
    const { total, succeeded, failed, cancelled, pending } = page;
    pageCounts.push({ total, succeeded, failed, cancelled, pending });
    if (!page.hasMore) return { results, counts: pageCounts[0]!, pageCounts };
    cursor = page.nextCursor;
  }
}

describe("a parent agent with 200 children", () => {
  it("spawns them, parks until all have settled, and collects each one's outcome and the exact counts", async ({
    pfx,
  }) => {
    const { fx } = pfx;
    const { worker, logs } = await pfx.startWorker({ concurrency: 8, parkRecheckMs: 120_000 });
    const children = planChildren(CHILDREN);
    const designed = expectedCounts(children);
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      input: {
        script: [
          { call: [{ tool: "spawn_agents", args: { agents: children.map((c) => c.item) } }] },
          { call: [{ tool: "collect_agents", args: { wait: true, limit: 500 } }] },
          { call: [{ tool: "structured_output", args: designed }] },
        ],
      },
      outputSchema: Summary,
    });

    // The parent parks with its children still running; then the test cancels the slow one.
    await logs.waitFor((line) => line.msg === "run parked" && line.runId === parent);
    const [spawned] = (await pfx.toolResults(parent, "spawn_agents")) as SpawnResult[];
    expect(spawned).toMatchObject({ total: CHILDREN, succeeded: CHILDREN, failed: 0 });
    const childIds = spawned!.results.map((item) => item.runId!);
    const slow = childIds[children.findIndex((child) => child.kind === "slow-cancelled")]!;
    await fx.waitForEvent(slow, (event) => event.type === "run-started");
    expect((await fx.errand.cancel(slow, { reason: "too slow for the test" })).requested).toBe(
      true,
    );

    const parentLog: RunEvent[] = await fx.waitForEvent(parent);
    expect(parentLog.at(-1)?.type).toBe("finished");

    // The test's own view: pages of 50 through the client, each child as planned.
    const collected = await collectInPages(pfx, childIds);
    expect(collected.pageCounts).toHaveLength(CHILDREN / 50);
    // Every page counts every child.
    for (const counts of collected.pageCounts) expect(counts).toEqual(collected.counts);
    expect(collected.results.map((result) => result.runId)).toEqual(childIds);
    collected.results.forEach((result, index) => {
      const { expected } = children[index]!;
      expect(result.status).toBe(expected.status);
      if (expected.output !== undefined) expect(result.output).toEqual(expected.output);
      if (expected.code !== undefined) expect(result.error?.code).toBe(expected.code);
    });
    expect(collected.counts).toEqual({ ...designed, pending: 0 });

    // The parent's view: one collect over every child, woken once, none pending.
    const collects = (await pfx.toolResults(parent, "collect_agents")) as CollectResult[];
    expect(collects).toHaveLength(1);
    const { results: parentResults, ...parentCounts } = collects[0]!;
    expect(parentCounts).toEqual({ ...collected.counts, count: CHILDREN, hasMore: false });
    expect([...parentResults].sort((a, b) => (a.runId < b.runId ? -1 : 1))).toEqual(
      [...collected.results].sort((a, b) => (a.runId < b.runId ? -1 : 1)),
    );
    const started = parentLog.filter((event) => event.type === "run-started");
    expect(started.map((event) => event.data)).toMatchObject([
      { attempt: 1, workerId: worker.workerId, agentVersion: expect.any(String) },
      { attempt: 1, workerId: worker.workerId, agentVersion: expect.any(String) },
    ]);
    expect(
      logs.lines.filter((l) => l.msg === "parked run woken" && l.runId === parent),
    ).toHaveLength(1);

    // Its structured output summarises exactly what was collected.
    const result = await fx.errand.result(parent, { waitMs: 20_000 });
    expect(result).toMatchObject({ status: "succeeded", attempts: 1 });
    const { pending: _none, ...countsOnly } = collected.counts;
    expect(result?.output).toEqual(countsOnly);

    // What the parent kept of its children (their set) expires with it.
    const kept = fx.errand.keys.children(parent);
    expect(await fx.redis.exists(kept)).toBe(1);
    expect(await fx.redis.ttl(kept)).toBeGreaterThan(0);

    // Every child carries its parent, its root and its depth.
    const listed = await fx.errand.list({ parentRunId: parent, limit: 500 });
    expect(listed.items.map((item) => item.runId).sort()).toEqual([...childIds].sort());
    for (const runId of childIds) {
      expect(await fx.errand.store.readHead(runId)).toMatchObject({
        parentRunId: parent,
        rootRunId: parent,
        depth: 1,
      });
    }
  });
});
