/**
 * Redis refusing writes because it cannot persist (`MISCONF`: its save
 * failed, as on a full disk), against a real Redis whose BGSAVE is made to
 * fail: a worker holds its run through the spell and appends once Redis
 * takes writes again, the run completing in its first attempt; `fire` waits
 * the spell out and fires once it ends, and past its patience answers
 * `redis_unavailable` (retryable) naming the trouble.
 */
import { ErrandError, foldRun, settleRun } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { describe, expect } from "vitest";
import { createErrand } from "../client/client.js";
import { engineTest } from "../test-support/engine-test.js";
import { gatedModel } from "../test-support/gated-model.js";
import { captureLogs } from "../test-support/log-capture.js";
import { failRedisSaves } from "../test-support/redis-persistence.js";
import { createWorker } from "./create-worker.js";

const it = engineTest("worker-misconf");

/** The line a write logs when it first meets the refusal. */
const WAITING =
  "Redis refuses writes because it cannot persist (its last RDB save or AOF write failed: MISCONF): retrying the write until it can persist";

/** The line a write logs once it went through after the refusal. */
const PASSED = "Redis takes writes again: the write went through";

describe("a worker whose append Redis refuses with MISCONF", () => {
  it("holds the run and appends once Redis takes writes again: one attempt", async ({ fx }) => {
    const logs = captureLogs();
    const gate = gatedModel();
    const agent = defineAgent({
      name: "misconf-answerer",
      instructions: "Answer.",
      model: gate.model,
    });
    const worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [agent],
      logger: logs.logger,
    });
    let writeAgain: (() => Promise<void>) | undefined;
    try {
      const { runId } = await fx.errand.fire({ agent: agent.name, input: "hello" });
      await gate.inside;
      writeAgain = await failRedisSaves(fx.redis);
      gate.release();
      await logs.waitFor((line) => line.msg === WAITING && line.runId === runId);
      expect(await fx.errand.result(runId)).toBeUndefined();

      await writeAgain();
      writeAgain = undefined;
      const events = await fx.waitForEvent(runId);
      expect(events.map((event) => event.type)).toEqual([
        "run-queued",
        "run-started",
        "model-responded",
        "finished",
      ]);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", attempts: 1 });
      await logs.waitFor((line) => line.msg === PASSED && line.runId === runId);
      expect(logs.lines.filter((line) => line.msg === "job failed")).toEqual([]);
    } finally {
      await writeAgain?.();
      await worker.close();
    }
  });
});

describe("fire while Redis refuses writes with MISCONF", () => {
  it("waits the spell out and fires once it ends; past its patience, redis_unavailable naming the trouble", async ({
    fx,
  }) => {
    const logs = captureLogs();
    const agent = defineAgent({
      name: "misconf-fired",
      instructions: "Answer.",
      model: scriptedModel(),
      script: [{ say: "fired" }],
    });
    const worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [agent],
    });
    const errand = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      logger: logs.logger,
    });
    let writeAgain: (() => Promise<void>) | undefined;
    try {
      writeAgain = await failRedisSaves(fx.redis);
      // A deadline of one second is the call's patience: it ends within the spell.
      const refused = await errand
        .fire({ agent: agent.name, input: "too late", deadlineMs: 1_000 })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ErrandError);
      expect(refused).toMatchObject({
        code: "redis_unavailable",
        retryable: true,
        details: { trouble: "refusing-writes" },
      });

      const fired = errand.fire({ agent: agent.name, input: "hello" });
      // The refused fire logged the first wait; this one, the second.
      const firesWaiting = () =>
        logs.lines.filter((line) => line.msg === WAITING && line.write === "fire of a run");
      await logs.waitFor(() => firesWaiting().length === 2);
      await writeAgain();
      writeAgain = undefined;
      const { runId } = await fired;
      const events = await fx.waitForEvent(runId);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", attempts: 1 });
      await logs.waitFor((line) => line.msg === PASSED && line.write === "fire of a run");
    } finally {
      await writeAgain?.();
      await errand.close();
      await worker.close();
    }
  });
});
