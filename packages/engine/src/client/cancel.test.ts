/**
 * Cancel from another process: the test process cancels, a worker process
 * holds the run. A running run's model request is aborted; a run waiting in
 * the queue is removed and settled at once; a cascade reaches a child that
 * runs and a grandchild that waits. Each settles `cancelled`.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { describe, expect } from "vitest";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import type { WorkerProcess } from "../test-support/worker-processes.js";

const it = engineTest("cancel");

it.afterEach(({ fx }) => fx.killWorkers());

/** A script whose first model request takes ten minutes unless aborted. */
const endless = { script: [{ sleepMs: 600_000, say: "never said" }] };

function fireEndless(fx: EngineFixture, parentRunId?: string) {
  return fx.errand.fire({
    agent: TEST_AGENTS.plain,
    input: endless,
    ...(parentRunId === undefined ? {} : { parentRunId }),
  });
}

function modelRequest(worker: WorkerProcess, runId: string, aborted: boolean) {
  return worker.waitForLine(
    (line) => line.msg === "model request" && line.runId === runId && line.aborted === aborted,
    aborted ? `the abort of ${runId}'s model request` : `a model request of ${runId}`,
  );
}

function types(events: RunEvent[]): string[] {
  return events.map((event) => event.type);
}

/**
 * The status `cancel` reports for a run a worker holds: `running`, or
 * `cancelled` when the worker heard the cancel and settled the run before
 * the client looked at its job again (a busy machine makes that likely).
 */
const heldRunStatus = expect.stringMatching(/^(running|cancelled)$/);

describe("cancel", () => {
  it("aborts a running run's model request in the worker that holds it", async ({ fx }) => {
    const worker = await fx.spawn("holder");
    const { runId } = await fireEndless(fx);
    await modelRequest(worker, runId, false);

    const result = await fx.errand.cancel(runId, { reason: "changed my mind", by: "tester" });
    expect(result).toEqual({ runId, status: heldRunStatus, requested: true });
    const events = await fx.waitForEvent(runId);
    await modelRequest(worker, runId, true);

    expect(types(events)).toEqual(["run-queued", "run-started", "cancel-requested", "cancelled"]);
    expect(events[2]?.data).toEqual({ reason: "changed my mind", by: "tester" });
    expect(events[3]?.data).toEqual({ reason: "changed my mind" });
    expect(settleRun(foldRun(events))).toMatchObject({ status: "cancelled", attempts: 1 });
  });

  it("removes a run still waiting in the queue and settles it at once", async ({ fx }) => {
    const before = await fx.footprint();
    const { runId } = await fireEndless(fx);
    expect(await fx.queue.getJobState(runId)).toBe("waiting");

    const result = await fx.errand.cancel(runId);
    expect(result).toEqual({ runId, status: "cancelled", requested: true });
    expect(await fx.queue.getJobState(runId)).toBe("unknown");
    expect((await fx.footprint()).jobs).toEqual(before.jobs);
    const events = await fx.errand.store.readLog(runId);
    expect(types(events)).toEqual(["run-queued", "cancel-requested", "cancelled"]);
    expect(events[1]?.data).toEqual({ by: "client" });
  });

  it("cascades to a running child and a grandchild waiting in the queue", async ({ fx }) => {
    const worker = await fx.spawn("busy", { concurrency: 2 });
    const { runId: parent } = await fireEndless(fx);
    await modelRequest(worker, parent, false);
    const { runId: child } = await fireEndless(fx, parent);
    await modelRequest(worker, child, false);
    const { runId: grandchild } = await fireEndless(fx, child); // both slots are taken: it waits
    expect(await fx.queue.getJobState(grandchild)).toBe("waiting");

    const result = await fx.errand.cancel(parent, { cascade: true, reason: "stop the tree" });
    expect(result).toEqual({
      runId: parent,
      status: heldRunStatus,
      requested: true,
      descendants: [
        { runId: child, status: heldRunStatus, requested: true },
        { runId: grandchild, status: "cancelled", requested: true },
      ],
    });
    for (const runId of [parent, child, grandchild]) {
      const events = await fx.waitForEvent(runId);
      expect(events.at(-1)).toMatchObject({ type: "cancelled", data: { reason: "stop the tree" } });
    }
    await modelRequest(worker, parent, true);
    await modelRequest(worker, child, true);
    const childLog = await fx.errand.store.readLog(child);
    expect(childLog[2]?.data).toEqual({
      reason: "stop the tree",
      by: `client (cascade from ${parent})`,
    });
    expect(types(await fx.errand.store.readLog(grandchild))).toEqual([
      "run-queued",
      "cancel-requested",
      "cancelled",
    ]);
  });

  it("leaves a settled run as it is, and refuses unknown and malformed runIds", async ({ fx }) => {
    await fx.spawn("finisher");
    const { runId } = await fx.errand.fire({
      agent: TEST_AGENTS.plain,
      input: { script: [{ say: "done" }] },
    });
    const settled = await fx.waitForEvent(runId);

    expect(await fx.errand.cancel(runId, { cascade: true })).toEqual({
      runId,
      status: "succeeded",
      requested: false,
      descendants: [],
    });
    expect(await fx.errand.store.readLog(runId)).toEqual(settled);
    await expect(fx.errand.cancel(fx.errand.store.newRunId())).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(fx.errand.cancel("not-a-run")).rejects.toMatchObject({ code: "invalid_spec" });
  });
});
