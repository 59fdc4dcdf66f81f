/**
 * The processor of a run, in process against real Redis.
 *
 * Fencing: two writers on one run. Attempt A is inside its first model
 * request when attempt B starts (its run-started fenced on the log's seq) and
 * finishes the run; A's late step is refused, A writes nothing more, and the
 * log is the one B alone would have written.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { type Agent, agentVersion, defineAgent, type Model } from "@errand/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.js";
import { type EngineFixture, startEngineFixture } from "../test-support/engine-fixture.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { type CancelListener, startCancelListener } from "./cancel-listener.js";
import { processRun, type RunProcessorContext } from "./process-run.js";

let fx: EngineFixture;
let cancels: CancelListener;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  fx = await startEngineFixture("fencing");
  cancels = await startCancelListener(fx.server.url, fx.errand.keys, logger);
  await registerTestQueue(
    fx.redis,
    fx.errand.keys,
    [{ name: "answerer", scriptFromInput: false }],
    {
      queue: "parked-for-this-test",
    },
  );
});
afterAll(async () => {
  await cancels?.close();
  await fx?.stop();
});

/** A model that answers `text`, once `release` is called if it is gated. */
function answeringModel(text: string, gated: boolean) {
  let release = () => {};
  let entered = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const model: Model = {
    name: `answers-${text}`,
    supportsTools: true,
    async respond() {
      entered();
      if (gated) await released;
      return { text, calls: [], usage: { inputTokens: 1, outputTokens: 1 }, finish: "stop" };
    },
  };
  return { model, release, inside };
}

function agentOn(model: Model): Agent {
  return defineAgent({ name: "answerer", instructions: "Answer.", model });
}

function contextFor(workerId: string, model: Model): RunProcessorContext {
  const agent = agentOn(model);
  return {
    redis: fx.redis,
    keys: fx.errand.keys,
    store: fx.errand.store,
    agents: new Map([[agent.name, { agent, model, version: agentVersion(agent) }]]),
    workerId,
    queue: "process-run-test",
    cancels,
    logger,
    now: () => new Date(),
    pendingOf: async () => [],
  };
}

function types(events: RunEvent[]): string[] {
  return events.map((event) => event.type);
}

describe("two writers on one run", () => {
  it("refuses the stale attempt, which writes nothing", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const stale = answeringModel("stale answer", true);
    const fresh = answeringModel("fresh answer", false);

    const attemptA = processRun(contextFor("worker-a", stale.model), runId, "answerer");
    await stale.inside; // A announced attempt 1 and waits on its model
    const outcomeB = await processRun(contextFor("worker-b", fresh.model), runId, "answerer");
    const logAfterB = await fx.errand.store.readLog(runId);
    stale.release();
    const outcomeA = await attemptA;

    expect(outcomeB).toEqual({ kind: "settled", status: "succeeded" });
    expect(outcomeA).toEqual({ kind: "already-settled", status: "succeeded" });
    const log = await fx.errand.store.readLog(runId);
    expect(log).toEqual(logAfterB);
    expect(types(log)).toEqual([
      "run-queued",
      "run-started",
      "run-started",
      "model-responded",
      "finished",
    ]);
    expect(log[1]).toMatchObject({ data: { attempt: 1, workerId: "worker-a" } });
    expect(log[2]).toMatchObject({ data: { attempt: 2, workerId: "worker-b" } });
    expect(JSON.stringify(log)).not.toContain("stale answer");
    expect(settleRun(foldRun(log))).toMatchObject({
      status: "succeeded",
      text: "fresh answer",
      attempts: 2,
    });
  });

  it("stops writing when another attempt owns a run that is still open", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const first = answeringModel("first", true);
    const second = answeringModel("second", true);

    const attemptA = processRun(contextFor("worker-a", first.model), runId, "answerer");
    await first.inside;
    const attemptB = processRun(contextFor("worker-b", second.model), runId, "answerer");
    await second.inside; // B announced attempt 2: A's seq is stale
    first.release();
    expect(await attemptA).toEqual({ kind: "lost" });
    expect(types(await fx.errand.store.readLog(runId))).toEqual([
      "run-queued",
      "run-started",
      "run-started",
    ]);

    second.release();
    expect(await attemptB).toEqual({ kind: "settled", status: "succeeded" });
    const log = await fx.errand.store.readLog(runId);
    expect(log.at(-1)).toMatchObject({ type: "finished", data: { text: "second" } });
    expect(JSON.stringify(log)).not.toContain('"first"');
  });
});

/** `context` whose store counts its appends. */
function countingAppends(context: RunProcessorContext): {
  context: RunProcessorContext;
  appends: () => number;
} {
  let appends = 0;
  const store = context.store;
  const counted = Object.create(store) as typeof store;
  counted.appendEvents = (...args) => {
    appends += 1;
    return store.appendEvents(...args);
  };
  return { context: { ...context, store: counted }, appends: () => appends };
}

describe("the optimistic first attempt (a job's first delivery)", () => {
  it("logs run-started with the first step, in one append, as the same history", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const once = answeringModel("at once", false);
    const { context, appends } = countingAppends(contextFor("worker-a", once.model));

    const outcome = await processRun(context, runId, "answerer", { first: true });

    expect(outcome).toEqual({ kind: "settled", status: "succeeded" });
    expect(appends()).toBe(1);
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "run-started", "model-responded", "finished"]);
    expect(log[1]).toMatchObject({ seq: 2, data: { attempt: 1, workerId: "worker-a" } });
    expect(settleRun(foldRun(log))).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("loses to a job taken back meanwhile, whose attempt was announced on its own", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const zombie = answeringModel("zombie answer", true);
    const rescuer = answeringModel("rescued", false);

    const attemptA = processRun(contextFor("worker-a", zombie.model), runId, "answerer", {
      first: true,
    });
    await zombie.inside; // A's run-started waits for its step: nothing logged yet
    expect(types(await fx.errand.store.readLog(runId))).toEqual(["run-queued"]);
    const outcomeB = await processRun(contextFor("worker-b", rescuer.model), runId, "answerer");
    zombie.release();

    expect(outcomeB).toEqual({ kind: "settled", status: "succeeded" });
    expect(await attemptA).toEqual({ kind: "already-settled", status: "succeeded" });
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "run-started", "model-responded", "finished"]);
    expect(log[1]).toMatchObject({ data: { attempt: 1, workerId: "worker-b" } });
    expect(JSON.stringify(log)).not.toContain("zombie answer");
  });

  it("starts again from the log when its start is refused by another writer but no attempt", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const gated = answeringModel("after a move", true);
    const { context, appends } = countingAppends(contextFor("worker-a", gated.model));

    const attempt = processRun(context, runId, "answerer", { first: true });
    await gated.inside;
    // The log moves on under the optimistic attempt without another attempt starting.
    await fx.errand.store.appendEvents(runId, 1, [
      { type: "cancel-requested", at: new Date().toISOString(), data: { reason: "changed mind" } },
    ]);
    gated.release();

    expect(await attempt).toEqual({ kind: "cancelled" });
    // The refused optimistic append, then the cancel written from the log.
    expect(appends()).toBe(2);
    expect(types(await fx.errand.store.readLog(runId))).toEqual([
      "run-queued",
      "cancel-requested",
      "cancelled",
    ]);
  });
});

describe("what the log decides before an attempt starts", () => {
  it("settles cancelled, without starting, a run whose cancel came before the worker", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    await fx.errand.store.appendEvents(runId, "any", [
      { type: "cancel-requested", at: new Date().toISOString(), data: { reason: "too late" } },
    ]);
    const untouched = answeringModel("never asked", false);
    const outcome = await processRun(contextFor("worker-a", untouched.model), runId, "answerer");

    expect(outcome).toEqual({ kind: "cancelled" });
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "cancel-requested", "cancelled"]);
    expect(log[2]?.data).toEqual({ reason: "too late" });
  });

  it("leaves a settled run alone", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const done = answeringModel("done", false);
    await processRun(contextFor("worker-a", done.model), runId, "answerer");
    const settled = await fx.errand.store.readLog(runId);

    const again = await processRun(contextFor("worker-b", done.model), runId, "answerer");
    expect(again).toEqual({ kind: "already-settled", status: "succeeded" });
    expect(await fx.errand.store.readLog(runId)).toEqual(settled);
  });

  it("refuses a job for an agent it does not run, or naming another agent than the run's", async () => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const model = answeringModel("unused", false).model;
    await expect(
      processRun(contextFor("worker-a", model), runId, "stranger"),
    ).rejects.toMatchObject({ code: "invalid_spec" });
    const other = defineAgent({ name: "other", instructions: "Other.", model });
    const context = {
      ...contextFor("worker-a", model),
      agents: new Map([[other.name, { agent: other, model, version: agentVersion(other) }]]),
    };
    await expect(processRun(context, runId, "other")).rejects.toMatchObject({
      code: "invalid_spec",
      message: expect.stringContaining("the run is of agent answerer"),
    });
    expect(types(await fx.errand.store.readLog(runId))).toEqual(["run-queued"]);
  });
});
