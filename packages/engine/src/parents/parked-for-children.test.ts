/**
 * A waiting parent with more pending children than a park lists, against
 * real Redis: `collect_agents` parks it for its children set (their count,
 * not their runIds), its re-check asks the children index newest slice
 * first, and the slice it waits for moves to older children as the newest
 * settle, until none is pending. With no more pending than a park lists, it
 * parks for their runIds, as before.
 */
import type { RunEvent } from "@errand/core";
import { afterAll, describe, expect } from "vitest";
import { parentTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { parkedAgainFromTail } from "../worker/parked-recheck.js";
import { collectEveryChild } from "./children-tally.js";
import { newestPendingChildren, newestSliceHasPending } from "./pending-children.js";
import { spawnAgentsTool } from "./spawn-agents.js";
import type { SpawnResult } from "./spawn-children.js";
import { CHILD, LEAD } from "./test-support/parent-fixture.js";
import { callTool, type LentServices, lendParentServices } from "./test-support/tool-calls.js";

const it = parentTest("parked-for-children");

const CHILDREN = 12;
const SLICE = 5;

let lent: LentServices | undefined;
afterAll(async () => {
  await lent?.close();
});

describe("a parent parked for its children set", () => {
  it("parks for their count past the listed runs, and is asked a slice at a time, newest first", async ({
    pfx,
  }) => {
    const { fx } = pfx;
    await registerTestQueue(fx.redis, fx.errand.keys, [{ name: LEAD }, { name: CHILD }], {
      queue: "nobody-takes-these",
    });
    lent = lendParentServices(fx);
    const reads = lent.reads;
    const parent = (await fx.errand.fire({ agent: LEAD, input: null })).runId;
    const agents = Array.from({ length: CHILDREN }, (_, index) => ({ agent: CHILD, input: index }));
    const site = { runId: parent, step: 1, callId: "call_1_1", services: lent.services };
    const spawned = (await callTool(spawnAgentsTool, { agents }, site)) as SpawnResult;
    expect(spawned.results.every((item) => item.runId !== undefined)).toBe(true);
    // In creation order: the children index's.
    const children = await reads.redis.zrange(fx.errand.keys.children(parent), 0, -1);
    expect(children).toHaveLength(CHILDREN);

    const request = { parentRunId: parent, wait: true };
    expect(await collectEveryChild(reads, request, { slice: SLICE, listed: CHILDREN - 1 })).toEqual(
      { waitForChildren: CHILDREN, total: CHILDREN },
    );
    expect(await collectEveryChild(reads, request, { slice: SLICE, listed: CHILDREN })).toEqual({
      waitFor: children,
      total: CHILDREN,
    });

    // The parent's log ends with the park the tool asked for: a count, no runIds.
    const parked: RunEvent["type"] = "run-parked";
    await fx.errand.store.appendEvents(parent, "any", [
      {
        type: parked,
        at: new Date().toISOString(),
        data: {
          step: 1,
          callId: "call_1_2",
          waitFor: [],
          reason: `waiting for ${CHILDREN} of ${CHILDREN} runs to settle`,
          waitForChildren: CHILDREN,
        },
      },
    ]);
    const recheck = {
      store: fx.errand.store,
      newestPendingOf: async () => [],
      newestPendingChildrenOf: async (runId: string) =>
        (await newestPendingChildren(reads, runId, undefined, SLICE)).pending,
    };
    expect(await parkedAgainFromTail(recheck, parent, LEAD, undefined)).toEqual({
      kind: "parked",
      waitFor: [],
      waitForChildren: true,
    });

    expect(await newestSliceHasPending(reads, parent)).toBe(true);
    // Newest first, slices from the end: 7–11, then 2–6, then 0–1.
    expect(await newestPendingChildren(reads, parent, undefined, SLICE)).toEqual({
      pending: children.slice(7),
      from: 7,
    });
    await settle(children.slice(3));
    expect(await newestPendingChildren(reads, parent, undefined, SLICE)).toEqual({
      pending: children.slice(2, 3),
      from: 2,
    });
    // A look before the slice waited for reads only the children older than it.
    expect(await newestPendingChildren(reads, parent, 2, SLICE)).toEqual({
      pending: children.slice(0, 2),
      from: 0,
    });
    await settle(children.slice(0, 3));
    expect(await newestPendingChildren(reads, parent, undefined, SLICE)).toEqual({
      pending: [],
      from: 0,
    });
    expect(await parkedAgainFromTail(recheck, parent, LEAD, undefined)).toBeUndefined();
    expect(await newestSliceHasPending(reads, parent)).toBe(false);
    const outcome = await collectEveryChild(reads, request, { slice: SLICE, listed: 1 });
    expect(outcome).toMatchObject({ page: { total: CHILDREN, succeeded: CHILDREN, pending: 0 } });

    /** Finishes `runIds` and waits until each has a stored result. */
    async function settle(runIds: readonly string[]): Promise<void> {
      const at = new Date().toISOString();
      await Promise.all(
        runIds.map((runId) =>
          fx.errand.store.appendEvents(runId, "any", [
            { type: "finished", at, data: { text: "ok" } },
          ]),
        ),
      );
      let waiting = [...runIds];
      while (waiting.length > 0) {
        const read = await fx.errand.collect(waiting, { waitMs: 20_000, limit: 100 });
        waiting = read.results.filter((r) => r.status === "pending").map((r) => r.runId);
      }
    }
  });
});
