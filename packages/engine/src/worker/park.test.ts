/**
 * Parking: a parent whose tool waits for its child parks; its job leaves the
 * worker (concurrency 1), so the child runs in the freed slot; when the
 * collector announces the child settled, the parent's job is promoted at once
 * (its delay is longer than the test may take) and it resumes from its log —
 * in the same attempt: parking is waiting, not a retry. A job that comes back
 * while its child still runs parks again under the worker's one waiter for it.
 */
import { foldRun, settleRun } from "@errand/core";
import { defineAgent, defineTool, ParkRequest, scriptedModel } from "@errand/runtime";
import { afterAll, describe, expect } from "vitest";
import { z } from "zod";
import { type Collector, createCollector } from "../collector/create-collector.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { captureLogs } from "../test-support/log-capture.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { createWorker, type ErrandWorker } from "./create-worker.js";

const it = engineTest("park");

let collector: Collector;
let worker: ErrandWorker | undefined;

it.beforeAll(async ({ fx }) => {
  collector = createCollector({
    connection: fx.server.url,
    prefix: fx.prefix,
    reaper: false,
    blockMs: 100,
  });
  await collector.start();
});
afterAll(async () => {
  await worker?.close({ graceMs: 1_000 });
  await collector?.stop();
});

/** The log of a parent that parked once on its child and resumed once it settled, in one attempt. */
const PARKED_THEN_RESUMED = [
  "run-queued",
  "run-started",
  "model-responded",
  "tool-called",
  "run-parked",
  "run-started",
  "tool-called",
  "tool-result",
  "model-responded",
  "finished",
];

function parkingAgents(fx: EngineFixture) {
  let waits = 0;
  const waitForChildren = defineTool({
    name: "wait_for_children",
    description: "Waits until every child of this run has settled.",
    parameters: z.object({}),
    handler: async (_args, ctx) => {
      waits++;
      const children = await fx.redis.zrange(fx.errand.keys.children(ctx.runId), 0, -1);
      const heads = await Promise.all(children.map((runId) => fx.errand.store.readHead(runId)));
      if (heads.some((head) => head?.settledAt === undefined)) {
        throw new ParkRequest("children still running", children);
      }
      return { settled: children.length };
    },
  });
  const common = {
    instructions: "Follow your script.",
    model: scriptedModel(),
    scriptFromInput: true,
  };
  const agents = [
    defineAgent({ ...common, name: "parent", tools: [waitForChildren] }),
    defineAgent({ ...common, name: "child" }),
  ];
  return { agents, waits: () => waits };
}

describe("a parked run", () => {
  it("frees its worker slot and resumes as soon as what it waits for settles", async ({ fx }) => {
    await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "parent" }, { name: "child" }]);
    const { runId: parent } = await fx.errand.fire({
      agent: "parent",
      input: {
        script: [{ call: [{ tool: "wait_for_children", args: {} }] }, { say: "all settled" }],
      },
    });
    const { runId: child } = await fx.errand.fire({
      agent: "child",
      input: { script: [{ say: "child done" }] },
      parentRunId: parent,
    });

    const { agents, waits } = parkingAgents(fx);
    const logs = captureLogs();
    worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents,
      concurrency: 1,
      parkRecheckMs: 120_000, // longer than the test may run: only the wake-up can bring it back
      logger: logs.logger,
    });

    const events = await fx.waitForEvent(parent);
    expect(settleRun(foldRun(events))).toMatchObject({
      status: "succeeded",
      text: "all settled",
      attempts: 1,
    });
    expect(events.map((event) => event.type)).toEqual(PARKED_THEN_RESUMED);
    expect(events[4]?.data).toMatchObject({
      step: 1,
      waitFor: [child],
      reason: "children still running",
    });
    expect(events[7]?.data).toMatchObject({ ok: true, result: { settled: 1 } });
    expect(events[1]?.data).toMatchObject({ attempt: 1 });
    expect(events[5]?.data).toMatchObject({ attempt: 1 });
    expect(waits()).toBe(2);
    const childResult = settleRun(foldRun(await fx.errand.store.readLog(child)));
    expect(childResult).toMatchObject({ status: "succeeded", text: "child done", attempts: 1 });
    await logs.waitFor((line) => line.msg === "run parked" && line.runId === parent);
  });

  it("parks again without writing when its job comes back while what it waits for still runs", async ({
    fx,
  }) => {
    await worker?.close({ graceMs: 1_000 });
    const { runId: parent } = await fx.errand.fire({
      agent: "parent",
      input: {
        script: [{ call: [{ tool: "wait_for_children", args: {} }] }, { say: "all settled" }],
      },
    });
    const { runId: child } = await fx.errand.fire({
      agent: "child",
      input: { script: [{ sleepMs: 2_000, say: "child done" }] },
      parentRunId: parent,
    });
    const { agents, waits } = parkingAgents(fx);
    const logs = captureLogs();
    worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents,
      concurrency: 2,
      parkRecheckMs: 200, // the job comes back many times while the child sleeps
      logger: logs.logger,
    });

    const events = await fx.waitForEvent(parent);
    const comebacks = logs.lines.filter(
      (line) => line.msg === "run parked" && line.runId === parent,
    );
    expect(comebacks.length).toBeGreaterThan(2);
    // One waiter on the worker, kept across the job's comebacks: the awaited runs are read once.
    const listeners = logs.lines.filter(
      (line) => line.msg === "listening for a parked run's runs" && line.runId === parent,
    );
    expect(listeners).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual(PARKED_THEN_RESUMED);
    expect(waits()).toBe(2);
    expect(settleRun(foldRun(await fx.errand.store.readLog(child)))).toMatchObject({
      status: "succeeded",
    });
  });
});
