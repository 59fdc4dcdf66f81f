/**
 * A parked parent frees its slot: on one worker of concurrency 1 the parent
 * spawns three children and collects them with `wait`. Its job leaves the
 * worker, the children run in the freed slot on that same worker, and the
 * parent resumes from its log — woken when the last child has a stored
 * result, not by its recheck delay, which is longer than the test — and
 * finishes with every child collected.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { describe, expect } from "vitest";
import type { CollectResult } from "../reads/collect.js";
import { parentTest } from "../test-support/engine-test.js";
import type { SpawnResult } from "./spawn-children.js";
import { LEAD, spawnThreeThenCollect } from "./test-support/parent-fixture.js";

const it = parentTest("parked-parent");

const callName = (events: readonly RunEvent[], callId: string) =>
  events
    .flatMap((event) => (event.type === "model-responded" ? event.data.calls : []))
    .find((call) => call.callId === callId)?.name;

describe("a parked parent on a worker of concurrency 1", () => {
  it("leaves its slot to its children, which run on the same worker, and resumes once they settled", async ({
    pfx,
  }) => {
    const { fx } = pfx;
    const { worker, logs } = await pfx.startWorker({ concurrency: 1, parkRecheckMs: 120_000 });
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      input: spawnThreeThenCollect("all three collected"),
    });

    const events = await fx.waitForEvent(parent);
    expect(settleRun(foldRun(events))).toMatchObject({
      status: "succeeded",
      text: "all three collected",
      attempts: 1,
    });
    // The collect call was logged open (parked), then the run started again and ran it to a result.
    const described = events.map((event) =>
      event.type === "tool-called" || event.type === "tool-result"
        ? `${event.type} ${callName(events, event.data.callId)}`
        : event.type,
    );
    expect(described).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called spawn_agents",
      "tool-result spawn_agents",
      "model-responded",
      "tool-called collect_agents",
      "run-parked",
      "run-started",
      "tool-called collect_agents",
      "tool-result collect_agents",
      "model-responded",
      "finished",
    ]);
    const parked = events.find((event) => event.type === "run-parked");
    expect(parked?.data).toMatchObject({ reason: "waiting for 3 of 3 runs to settle" });
    for (const event of events.filter((e) => e.type === "run-started")) {
      expect(event.data).toEqual({
        attempt: 1,
        workerId: worker.workerId,
        agentVersion: expect.any(String),
      });
    }

    const [spawned] = (await pfx.toolResults(parent, "spawn_agents")) as SpawnResult[];
    const children = spawned!.results.map((item) => item.runId!);
    expect(children).toHaveLength(3);
    for (const child of children) {
      const log = await fx.errand.store.readLog(child);
      const started = log.filter((event) => event.type === "run-started");
      expect(started.map((event) => event.data)).toEqual([
        { attempt: 1, workerId: worker.workerId, agentVersion: expect.any(String) },
      ]);
      // Each child ran while the parent was parked: after its park, before its resume.
      expect(Date.parse(started[0]!.at)).toBeGreaterThanOrEqual(Date.parse(events[6]!.at));
      expect(Date.parse(started[0]!.at)).toBeLessThanOrEqual(Date.parse(events[8]!.at));
    }
    const [collected] = (await pfx.toolResults(parent, "collect_agents")) as CollectResult[];
    expect(collected).toMatchObject({ total: 3, succeeded: 3, pending: 0, hasMore: false });
    expect(collected!.results.map((result) => result.text).sort()).toEqual([
      "child 1 done",
      "child 2 done",
      "child 3 done",
    ]);
    await logs.waitFor((line) => line.msg === "parked run woken" && line.runId === parent);
  });
});
