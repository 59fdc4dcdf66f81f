/**
 * Children inherit their parent's concurrency key (a tenant's limit holds
 * over the whole tree): a parent fired under a key limited to 1 spawns three
 * slow children on a worker of 4 slots; each child's `run-queued` carries the
 * parent's key and the children run one at a time (read from their logs).
 * A child fired with a key of its own keeps it.
 */
import type { RunEvent } from "@errand/core";
import { describe, expect } from "vitest";
import { parentTest } from "../test-support/engine-test.js";
import { intervalOf, mostAtOnce } from "../test-support/ran-intervals.js";
import type { SpawnResult } from "./spawn-children.js";
import { CHILD, LEAD, spawnThreeThenCollect } from "./test-support/parent-fixture.js";

const it = parentTest("child-key");

const queuedKey = (events: readonly RunEvent[]) =>
  events[0]?.type === "run-queued" ? events[0].data.concurrencyKey : undefined;

describe("a parent's concurrency key", () => {
  it("is its children's, who count against the key's limit, unless a child is fired with its own", async ({
    pfx,
  }) => {
    const { fx } = pfx;
    await pfx.startWorker({
      concurrency: 4,
      parkRecheckMs: 120_000,
      flowControl: { keyConcurrency: [{ key: "tenant-*", limit: 1 }], recheckMs: 100 },
    });
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      concurrencyKey: "tenant-a",
      input: spawnThreeThenCollect("collected", { sleepMs: 300 }),
    });
    expect((await fx.waitForEvent(parent)).at(-1)?.type).toBe("finished");

    const [spawned] = (await pfx.toolResults(parent, "spawn_agents")) as SpawnResult[];
    const children = spawned!.results.map((item) => item.runId!);
    const logs = await Promise.all(children.map((child) => fx.waitForEvent(child)));
    expect(logs.map(queuedKey)).toEqual(["tenant-a", "tenant-a", "tenant-a"]);
    expect(logs.map((events) => events.at(-1)?.type)).toEqual(["finished", "finished", "finished"]);
    expect(mostAtOnce(logs.map((events, index) => intervalOf(children[index]!, events)))).toBe(1);

    const { runId: own } = await fx.errand.fire({
      agent: CHILD,
      input: { script: [{ say: "mine" }] },
      parentRunId: parent,
      concurrencyKey: "tenant-b",
    });
    expect(queuedKey(await fx.errand.store.readLog(own))).toBe("tenant-b");
  });
});
