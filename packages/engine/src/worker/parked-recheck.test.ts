/**
 * A parked parent's re-check, against real Redis and a real worker: while a
 * child it waits for is still pending, the re-check parks it again from the
 * log's first and last events alone — two events read, however long the
 * log — for every run of its `run-parked`, and hands the full read back
 * (`undefined`) once every awaited run has settled, or for a worker of
 * another agent or version.
 */
import type { RunEvent } from "@errand/core";
import type { EventStore } from "@errand/store";
import { newestPendingRunIds } from "@errand/store/ops";
import { afterAll, describe, expect } from "vitest";
import { CHILD, LEAD } from "../parents/test-support/parent-fixture.js";
import { type LentServices, lendParentServices } from "../parents/test-support/tool-calls.js";
import { parentTest } from "../test-support/engine-test.js";
import { eventsUntil } from "../test-support/events-until.js";
import { parkedAgainFromTail } from "./parked-recheck.js";

const it = parentTest("parked-recheck");

let lent: LentServices | undefined;
afterAll(async () => {
  await lent?.close();
});

/** `store` whose `readLog` counts the events it hands back into `read`. */
function countingStore(store: EventStore, read: { events: number }): EventStore {
  return {
    ...store,
    readHead: (runId) => store.readHead(runId),
    async readLog(runId, options) {
      const events = await store.readLog(runId, options);
      read.events += events.length;
      return events;
    },
  };
}

describe("parkedAgainFromTail", () => {
  it("parks a parent again from the ends of its log while a child is pending, and not once none is", async ({
    pfx,
  }) => {
    const { fx } = pfx;
    await pfx.startWorker({ concurrency: 2, parkRecheckMs: 120_000 });
    lent = lendParentServices(fx);
    const reads = lent.reads;
    const quick = { agent: CHILD, input: { script: [{ say: "quick" }] } };
    const slow = { agent: CHILD, input: { script: [{ sleepMs: 6_000, say: "slow" }] } };
    const steps = Array.from({ length: 4 }, () => ({
      call: [{ tool: "spawn_agents", args: { agents: [quick] } }],
    }));
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      input: {
        script: [
          ...steps,
          { call: [{ tool: "spawn_agents", args: { agents: [slow] } }] },
          { call: [{ tool: "collect_agents", args: { wait: true } }] },
          { say: "collected" },
        ],
      },
    });
    const log: RunEvent[] = await eventsUntil(fx.errand, parent, (e) => e.type === "run-parked");
    const queued = log.find((event) => event.type === "run-queued");
    const version = queued?.type === "run-queued" ? queued.data.agentVersion : undefined;
    const parked = log.at(-1);
    expect(parked?.type).toBe("run-parked");
    const waitFor = parked?.type === "run-parked" ? parked.data.waitFor : [];
    expect(waitFor.length).toBeGreaterThan(0);
    expect(log.length).toBeGreaterThan(10);

    const read = { events: 0 };
    const context = {
      store: countingStore(fx.errand.store, read),
      newestPendingOf: (runIds: readonly string[]) => newestPendingRunIds(reads, runIds),
      newestPendingChildrenOf: async () => [],
    };
    const again = await parkedAgainFromTail(context, parent, LEAD, version);
    expect(again).toEqual({ kind: "parked", waitFor });
    expect(read.events).toBe(2);
    expect(await parkedAgainFromTail(context, parent, CHILD, version)).toBeUndefined();
    expect(await parkedAgainFromTail(context, parent, LEAD, "another-version")).toBeUndefined();

    const settled = await eventsUntil(fx.errand, parent);
    expect(settled.at(-1)?.type).toBe("finished");
    expect(await parkedAgainFromTail(context, parent, LEAD, version)).toBeUndefined();
  });
});
