/**
 * The processor of a run, in process against real Redis.
 *
 * Fencing: two writers on one run. Attempt A is inside its first model
 * request when attempt B starts (its run-started fenced on the log's seq) and
 * finishes the run; A's late step is refused, A writes nothing more, and the
 * log is the one B alone would have written.
 *
 * The rescuer gap: a stale worker that lost the job's lock appends a step
 * between the rescuer's read of the log and the rescuer's `run-started`. The
 * rescuer's start is refused; it reads the log again and starts again, and
 * carries the run to its end however the stale worker ends. A store whose
 * `run-started` appends call a hook first puts the stale step exactly there.
 */
import { randomBytes } from "node:crypto";
import {
  foldRun,
  type NewEvent,
  newRunId,
  type RunEvent,
  type RunEventOf,
  settleRun,
} from "@errand/core";
import { RUN_ID_RANDOM_BYTES } from "@errand/core/ops";
import {
  type Agent,
  agentVersion,
  defineAgent,
  defineTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from "@errand/runtime";
import { buildTranscript } from "@errand/runtime/ops";
import type { EventStore } from "@errand/store";
import { describe, expect } from "vitest";
import { z } from "zod";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { type CancelListener, startCancelListener } from "./cancel-listener.js";
import { MAX_START_TRIES, processRun } from "./process-run.js";
import type { RunProcessorContext } from "./run-processor-context.js";

const it = engineTest("fencing");

let cancels: CancelListener;
const logger = createLogger({ level: "silent" });

it.beforeAll(async ({ fx }) => {
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
it.afterAll(async () => {
  await cancels?.close();
});

/** A promise, and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A model that answers `text`, once `release` is called if it is gated. */
function answeringModel(text: string, gated: boolean) {
  const released = gate();
  const entered = gate();
  const model: Model = {
    name: `answers-${text}`,
    supportsTools: true,
    async respond() {
      entered.open();
      if (gated) await released.opened;
      return { text, calls: [], usage: { inputTokens: 1, outputTokens: 1 }, finish: "stop" };
    },
  };
  return { model, release: released.open, inside: entered.opened };
}

function agentOn(model: Model): Agent {
  return defineAgent({ name: "answerer", instructions: "Answer.", model });
}

function contextFor(
  fx: EngineFixture,
  workerId: string,
  model: Model,
  agent = agentOn(model),
): RunProcessorContext {
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
    collectRuns: (runIds, options) => fx.errand.collect(runIds, options),
    newestPendingOf: async () => [],
    newestPendingChildrenOf: async () => [],
  };
}

function types(events: RunEvent[]): string[] {
  return events.map((event) => event.type);
}

/** A's attempt 1 then B's attempt 2 started the run, which settled with B's answer alone. */
function expectTakenOverByB(log: RunEvent[]): void {
  const starts = log.flatMap((event) => (event.type === "run-started" ? [event.data] : []));
  expect(starts).toMatchObject([
    { attempt: 1, workerId: "worker-a" },
    { attempt: 2, workerId: "worker-b" },
  ]);
  expect(JSON.stringify(log)).not.toContain("stale answer");
  expect(settleRun(foldRun(log))).toMatchObject({
    status: "succeeded",
    text: "fresh answer",
    attempts: 2,
  });
}

describe("two writers on one run", () => {
  it("refuses the stale attempt, which writes nothing", async ({ fx }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const stale = answeringModel("stale answer", true);
    const fresh = answeringModel("fresh answer", false);

    const attemptA = processRun(contextFor(fx, "worker-a", stale.model), runId, "answerer");
    await stale.inside; // A announced attempt 1 and waits on its model
    const outcomeB = await processRun(contextFor(fx, "worker-b", fresh.model), runId, "answerer");
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
    expectTakenOverByB(log);
  });

  it("stops writing when another attempt owns a run that is still open", async ({ fx }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const first = answeringModel("first", true);
    const second = answeringModel("second", true);

    const attemptA = processRun(contextFor(fx, "worker-a", first.model), runId, "answerer");
    await first.inside;
    const attemptB = processRun(contextFor(fx, "worker-b", second.model), runId, "answerer");
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

/** `context` whose store counts its calls of `method`. */
function countingCalls(
  context: RunProcessorContext,
  method: "appendEvents" | "readLog",
): { context: RunProcessorContext; calls: () => number } {
  let calls = 0;
  const store = context.store;
  const counted = Object.create(store) as typeof store;
  const original = store[method] as (...args: unknown[]) => unknown;
  (counted as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
    calls += 1;
    return original.apply(store, args);
  };
  return { context: { ...context, store: counted }, calls: () => calls };
}

describe("the optimistic first attempt (a job's first delivery)", () => {
  it("logs run-started with the first step, in one append, as the same history", async ({ fx }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const once = answeringModel("at once", false);
    const { context, calls: appends } = countingCalls(
      contextFor(fx, "worker-a", once.model),
      "appendEvents",
    );

    const outcome = await processRun(context, runId, "answerer", { first: true });

    expect(outcome).toEqual({ kind: "settled", status: "succeeded" });
    expect(appends()).toBe(1);
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "run-started", "model-responded", "finished"]);
    expect(log[1]).toMatchObject({ seq: 2, data: { attempt: 1, workerId: "worker-a" } });
    expect(settleRun(foldRun(log))).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("loses to a job taken back meanwhile, whose attempt was announced on its own", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const zombie = answeringModel("zombie answer", true);
    const rescuer = answeringModel("rescued", false);

    const attemptA = processRun(contextFor(fx, "worker-a", zombie.model), runId, "answerer", {
      first: true,
    });
    await zombie.inside; // A's run-started waits for its step: nothing logged yet
    expect(types(await fx.errand.store.readLog(runId))).toEqual(["run-queued"]);
    const outcomeB = await processRun(contextFor(fx, "worker-b", rescuer.model), runId, "answerer");
    zombie.release();

    expect(outcomeB).toEqual({ kind: "settled", status: "succeeded" });
    expect(await attemptA).toEqual({ kind: "already-settled", status: "succeeded" });
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "run-started", "model-responded", "finished"]);
    expect(log[1]).toMatchObject({ data: { attempt: 1, workerId: "worker-b" } });
    expect(JSON.stringify(log)).not.toContain("zombie answer");
  });

  it("starts again from the log when its start is refused by another writer but no attempt", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const gated = answeringModel("after a move", true);
    const { context, calls: appends } = countingCalls(
      contextFor(fx, "worker-a", gated.model),
      "appendEvents",
    );

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

/** The run's `run-queued` as its log holds it: what its job carries. */
async function loggedQueued(fx: EngineFixture, runId: string): Promise<RunEventOf<"run-queued">> {
  const [queued] = await fx.errand.store.readLog(runId);
  if (queued?.type !== "run-queued") throw new Error(`run ${runId} has no run-queued`);
  return queued;
}

describe("the run-queued a job carried (its first delivery)", () => {
  it("decides from it without reading the log: the same history", async ({ fx }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const queued = await loggedQueued(fx, runId);
    const once = answeringModel("from the job", false);
    const { context, calls: reads } = countingCalls(
      contextFor(fx, "worker-a", once.model),
      "readLog",
    );

    const outcome = await processRun(context, runId, "answerer", { first: true, queued });

    expect(outcome).toEqual({ kind: "settled", status: "succeeded" });
    expect(reads()).toBe(0);
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "run-started", "model-responded", "finished"]);
    expect(settleRun(foldRun(log))).toMatchObject({ status: "succeeded", text: "from the job" });
  });

  it("is refused by the fence when the log moved on unheard, and the log then decides", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const queued = await loggedQueued(fx, runId);
    // A cancel this worker never heard: in the log, not on the cancel channel.
    await fx.errand.store.appendEvents(runId, "any", [
      { type: "cancel-requested", at: new Date().toISOString(), data: { reason: "unheard" } },
    ]);
    const model = answeringModel("too late", false);

    const outcome = await processRun(contextFor(fx, "worker-a", model.model), runId, "answerer", {
      first: true,
      queued,
    });

    expect(outcome).toEqual({ kind: "cancelled" });
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "cancel-requested", "cancelled"]);
    expect(JSON.stringify(log)).not.toContain("too late");
  });

  it("reads the log instead when a cancel of the run was heard before the job", async ({ fx }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const queued = await loggedQueued(fx, runId);
    await fx.errand.store.appendEvents(runId, "any", [
      { type: "cancel-requested", at: new Date().toISOString(), data: { reason: "heard" } },
    ]);
    await fx.redis.publish(fx.errand.keys.cancelChannel, runId);
    await expect
      .poll(() => {
        const held = cancels.hold(runId);
        held.release();
        return held.cancelHeard;
      })
      .toBe(true);
    let asked = 0;
    const counting: Model = {
      name: "counting",
      supportsTools: true,
      async respond() {
        asked += 1;
        return {
          text: "asked",
          calls: [],
          usage: { inputTokens: 1, outputTokens: 1 },
          finish: "stop",
        };
      },
    };
    const { context, calls: reads } = countingCalls(
      contextFor(fx, "worker-a", counting),
      "readLog",
    );

    const outcome = await processRun(context, runId, "answerer", { first: true, queued });

    expect(outcome).toEqual({ kind: "cancelled" });
    // Decided from the log, read at once: the model was never asked.
    expect(asked).toBe(0);
    expect(reads()).toBeGreaterThan(0);
    expect(types(await fx.errand.store.readLog(runId))).toEqual([
      "run-queued",
      "cancel-requested",
      "cancelled",
    ]);
  });
});

describe("what the log decides before an attempt starts", () => {
  it("settles cancelled, without starting, a run whose cancel came before the worker", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    await fx.errand.store.appendEvents(runId, "any", [
      { type: "cancel-requested", at: new Date().toISOString(), data: { reason: "too late" } },
    ]);
    const untouched = answeringModel("never asked", false);
    const outcome = await processRun(
      contextFor(fx, "worker-a", untouched.model),
      runId,
      "answerer",
    );

    expect(outcome).toEqual({ kind: "cancelled" });
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", "cancel-requested", "cancelled"]);
    expect(log[2]?.data).toEqual({ reason: "too late" });
  });

  it("leaves a settled run alone", async ({ fx }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const done = answeringModel("done", false);
    await processRun(contextFor(fx, "worker-a", done.model), runId, "answerer");
    const settled = await fx.errand.store.readLog(runId);

    const again = await processRun(contextFor(fx, "worker-b", done.model), runId, "answerer");
    expect(again).toEqual({ kind: "already-settled", status: "succeeded" });
    expect(await fx.errand.store.readLog(runId)).toEqual(settled);
  });

  it("resumes a run whose log is longer than a page from its log read a page at a time, the model seeing the transcript of the whole log", async ({
    fx,
  }) => {
    const runId = newRunId({
      shard: 0,
      nowMs: Date.now(),
      random: randomBytes(RUN_ID_RANDOM_BYTES),
    });
    const at = new Date().toISOString();
    // 150 steps of 4,000 characters each: 452 events, two pages; the transcript leaves the first 50 out.
    const steps = 150;
    const events: NewEvent[] = [
      {
        type: "run-queued",
        at,
        data: {
          agent: "answerer",
          input: "question",
          rootRunId: runId,
          depth: 0,
          limits: { maxSteps: steps + 1 },
          metadata: {},
        },
      },
      { type: "run-started", at, data: { attempt: 1, workerId: "worker-gone" } },
    ];
    for (let step = 1; step <= steps; step += 1) {
      const call = { callId: `call_${step}`, name: "lookup", args: { row: step } };
      const usage = { inputTokens: 1, outputTokens: 1 };
      events.push(
        { type: "model-responded", at, data: { step, calls: [call], usage, finish: "tool_calls" } },
        { type: "tool-called", at, data: { step, ...call } },
        {
          type: "tool-result",
          at,
          data: {
            step,
            callId: call.callId,
            ok: true,
            result: `${step}`.padEnd(4_000, "r"),
            bytes: 4_000,
            truncated: false,
          },
        },
      );
    }
    await fx.errand.store.appendEvents(runId, 0, events);
    const logged = await fx.errand.store.readLog(runId);
    const requests: ModelRequest[] = [];
    const model: Model = {
      name: "answers-after-its-log",
      supportsTools: true,
      async respond(request) {
        requests.push(request);
        return {
          text: "done",
          calls: [],
          usage: { inputTokens: 1, outputTokens: 1 },
          finish: "stop",
        };
      },
    };
    const agent = agentOn(model);
    const { context, calls: reads } = countingCalls(
      contextFor(fx, "worker-a", model, agent),
      "readLog",
    );

    const outcome = await processRun(context, runId, "answerer");

    expect(outcome).toEqual({ kind: "settled", status: "succeeded" });
    expect(reads()).toBe(2);
    expect(requests.map((request) => request.step)).toEqual([steps + 1]);
    const whole = buildTranscript(agent, foldRun(logged, runId));
    expect(JSON.stringify(requests[0]!.messages)).toBe(JSON.stringify(whole));
    expect(whole.some((message) => message.content?.includes("left out"))).toBe(true);
    expect(settleRun(foldRun(await fx.errand.store.readLog(runId)))).toMatchObject({
      status: "succeeded",
      text: "done",
      steps: steps + 1,
    });
  });

  it("refuses a job for an agent it does not run, or naming another agent than the run's", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const model = answeringModel("unused", false).model;
    await expect(
      processRun(contextFor(fx, "worker-a", model), runId, "stranger"),
    ).rejects.toMatchObject({ code: "invalid_spec" });
    const other = defineAgent({ name: "other", instructions: "Other.", model });
    const context = {
      ...contextFor(fx, "worker-a", model),
      agents: new Map([[other.name, { agent: other, model, version: agentVersion(other) }]]),
    };
    await expect(processRun(context, runId, "other")).rejects.toMatchObject({
      code: "invalid_spec",
      message: expect.stringContaining("the run is of agent answerer"),
    });
    expect(types(await fx.errand.store.readLog(runId))).toEqual(["run-queued"]);
  });
});

const noteTool = defineTool({
  name: "note",
  description: "Notes the question down.",
  parameters: z.object({}),
  handler: () => "noted",
});

/** An agent that notes the question down, then answers. */
function noteTakerOn(model: Model): Agent {
  return defineAgent({
    name: "answerer",
    instructions: "Note, then answer.",
    model,
    tools: [noteTool],
  });
}

const USAGE = { inputTokens: 1, outputTokens: 1 };

/**
 * The stale worker's model: its first turn (once `releaseFirstTurn` is
 * called) calls `note`; its second turn waits until `releaseSecondTurn`, then
 * answers `stale answer`. `inSecondTurn` resolves once step 1 is appended.
 */
function staleWorkerModel() {
  const firstTurn = gate();
  const secondTurn = gate();
  const enteredSecondTurn = gate();
  let turns = 0;
  const model: Model = {
    name: "stale-worker-model",
    supportsTools: true,
    async respond(): Promise<ModelResponse> {
      turns += 1;
      if (turns === 1) {
        await firstTurn.opened;
        const calls = [{ callId: "call-note", name: "note", args: {} }];
        return { text: "", calls, usage: USAGE, finish: "tool_calls" };
      }
      enteredSecondTurn.open();
      await secondTurn.opened;
      return { text: "stale answer", calls: [], usage: USAGE, finish: "stop" };
    },
  };
  return {
    model,
    releaseFirstTurn: firstTurn.open,
    releaseSecondTurn: secondTurn.open,
    inSecondTurn: enteredSecondTurn.opened,
  };
}

/** The fixture's store, calling `beforeStart` before each append that holds a `run-started`. */
function storeWithStartHook(fx: EngineFixture, beforeStart: () => Promise<void>): EventStore {
  const store = fx.errand.store;
  return {
    ...store,
    async appendEvents(runId, expectedSeq, events) {
      if (events.some((event) => event.type === "run-started")) await beforeStart();
      return store.appendEvents(runId, expectedSeq, events);
    },
  };
}

describe("a rescuer whose run-started is refused", () => {
  it("takes the run over from the log when a stale worker appended between its read and its start", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    const stale = staleWorkerModel();
    const attemptA = processRun(
      contextFor(fx, "worker-a", stale.model, noteTakerOn(stale.model)),
      runId,
      "answerer",
    );
    await expect
      .poll(async () => types(await fx.errand.store.readLog(runId)))
      .toContain("run-started");

    let starts = 0;
    const rescuerStore = storeWithStartHook(fx, async () => {
      starts += 1;
      if (starts > 1) return;
      // The rescuer has read the log; the stale worker appends its step 1 now.
      stale.releaseFirstTurn();
      await stale.inSecondTurn;
    });
    const fresh = answeringModel("fresh answer", false);
    const rescuer = contextFor(fx, "worker-b", fresh.model, noteTakerOn(fresh.model));
    const outcomeB = await processRun({ ...rescuer, store: rescuerStore }, runId, "answerer");

    expect(outcomeB).toEqual({ kind: "settled", status: "succeeded" });
    expect(starts).toBe(2);
    stale.releaseSecondTurn(); // the stale worker's next append is refused
    expect(await attemptA).toEqual({ kind: "already-settled", status: "succeeded" });
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "tool-result",
      "run-started",
      "model-responded",
      "finished",
    ]);
    expectTakenOverByB(log);
    expect(settleRun(foldRun(log))).toMatchObject({ steps: 2 });
  });

  it(`gives up, having written nothing, after ${MAX_START_TRIES} refused starts`, async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "answerer", input: "question" });
    let starts = 0;
    const busyStore = storeWithStartHook(fx, async () => {
      starts += 1;
      // Another writer announces an attempt before each of this one's starts.
      await fx.errand.store.appendEvents(runId, "any", [
        {
          type: "run-started",
          at: new Date().toISOString(),
          data: { attempt: starts, workerId: "worker-a" },
        },
      ]);
    });
    const unasked = answeringModel("never asked", false);
    const context = { ...contextFor(fx, "worker-b", unasked.model), store: busyStore };
    const outcome = await processRun(context, runId, "answerer");

    expect(outcome).toEqual({ kind: "lost" });
    expect(starts).toBe(MAX_START_TRIES);
    const log = await fx.errand.store.readLog(runId);
    expect(types(log)).toEqual(["run-queued", ...Array(MAX_START_TRIES).fill("run-started")]);
    expect(JSON.stringify(log)).not.toContain("worker-b");
  });
});
