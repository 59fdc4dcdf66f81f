/**
 * The processor of a run parked on a waitpoint, in process against real
 * Redis: while the waitpoint waits its job parks again without writing; and
 * an answer that lands between the processor's read and its `run-started`
 * (a worker whose clock says the waitpoint timed out, an answerer whose clock
 * says not yet: the worker's `waitpoint-timed-out` + `run-started` is then
 * refused) is not taken for another attempt owning the run: the log is read
 * again and the run resumes with the answer. The time parked does not count
 * against the run's `timeoutMs`; the time it worked does.
 */
import { foldRun, settleRun } from "@errand/core";
import { agentVersion, askTool, defineAgent, scriptedModel } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import { afterAll, describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { ASK_CALL, writeParkedRun } from "../test-support/parked-run.js";
import { type CancelListener, startCancelListener } from "./cancel-listener.js";
import { processRun } from "./process-run.js";
import type { RunProcessorContext } from "./run-processor-context.js";

const it = engineTest("process-waitpoints");

let cancels: CancelListener;
const logger = createLogger({ level: "silent" });

it.beforeAll(async ({ fx }) => {
  cancels = await startCancelListener(fx.server.url, fx.errand.keys, logger);
});
afterAll(async () => {
  await cancels?.close();
});

const asker = defineAgent({
  name: "asker",
  instructions: "Ask, then say done.",
  model: scriptedModel(),
  tools: [askTool()],
  script: [{ call: [{ tool: "ask", args: ASK_CALL.args }] }, { say: "done" }],
});

const HOUR_MS = 3_600_000;

function contextWith(
  fx: EngineFixture,
  store: EventStore,
  now = () => new Date(),
): RunProcessorContext {
  return {
    redis: fx.redis,
    keys: fx.errand.keys,
    store,
    agents: new Map([
      [asker.name, { agent: asker, model: scriptedModel(), version: agentVersion(asker) }],
    ]),
    workerId: "worker-b",
    queue: "process-run-waitpoints-test",
    cancels,
    logger,
    now,
    pendingOf: async () => [],
    collectRuns: (runIds, options) => fx.errand.collect(runIds, options),
    newestPendingOf: async () => [],
    newestPendingChildrenOf: async () => [],
  };
}

describe("processing a run parked on a waitpoint", () => {
  it("parks again without writing while the waitpoint waits", async ({ fx }) => {
    const { runId, token } = await writeParkedRun(fx.errand.store);
    const before = await fx.errand.store.readLog(runId);
    const outcome = await processRun(contextWith(fx, fx.errand.store), runId, "asker");
    expect(outcome).toMatchObject({ kind: "parked", waitFor: [], waitpoint: { token } });
    expect(await fx.errand.store.readLog(runId)).toEqual(before);
  });

  it("does not count the time parked on the waitpoint against the run's timeout, only the time it worked", async ({
    fx,
  }) => {
    const now = Date.now();
    const answerBy = new Date(now + HOUR_MS);
    // Parked two hours ago, right after it started, with a timeout of an hour: an hour of work left.
    const waited = await writeParkedRun(fx.errand.store, {
      at: new Date(now - 2 * HOUR_MS),
      timeoutAt: answerBy,
      timeoutMs: HOUR_MS,
    });
    await fx.errand.waitpoints.complete(waited.token, "yes");
    const resumed = await processRun(contextWith(fx, fx.errand.store), waited.runId, "asker");
    expect(resumed).toEqual({ kind: "settled", status: "succeeded" });

    // Worked two hours before it parked a minute ago: past its hour.
    const worked = await writeParkedRun(fx.errand.store, {
      at: new Date(now - 60_000),
      timeoutAt: answerBy,
      timeoutMs: HOUR_MS,
      workedMs: 2 * HOUR_MS,
    });
    await fx.errand.waitpoints.complete(worked.token, "yes");
    const timedOut = await processRun(contextWith(fx, fx.errand.store), worked.runId, "asker");
    expect(timedOut).toMatchObject({
      kind: "settled",
      status: "failed",
      error: { code: "timeout" },
    });
  });

  it("resumes with an answer that landed just before its run-started, instead of stopping or timing out", async ({
    fx,
  }) => {
    const { runId, token } = await writeParkedRun(fx.errand.store);
    // A store whose first append is beaten by an answer: the log moves on under the processor.
    let raced = false;
    const racing: EventStore = {
      ...fx.errand.store,
      async appendEvents(id, expectedSeq, events) {
        if (!raced) {
          raced = true;
          await fx.errand.waitpoints.complete(token, "yes");
        }
        return fx.errand.store.appendEvents(id, expectedSeq, events);
      },
    };
    const later = () => new Date(Date.now() + 2 * HOUR_MS);
    const outcome = await processRun(contextWith(fx, racing, later), runId, "asker");
    expect(outcome).toEqual({ kind: "settled", status: "succeeded" });
    const state = foldRun(await fx.errand.store.readLog(runId));
    expect(settleRun(state)).toMatchObject({ status: "succeeded", text: "done", attempts: 1 });
    expect(state.waitpoints[0]?.status).toBe("answered");
    const results = state.steps[0]?.calls[0]?.outcome;
    expect(results).toMatchObject({ kind: "result", result: { answered: true, answer: "yes" } });
  });
});
