/**
 * A budgeted run whose worker process is SIGKILLed mid-run, after its first
 * response was debited: the worker that resumes it debits what its log
 * holds again (idempotent per run and step), so the budget counts each
 * logged response exactly once.
 */
import type { RunEvent } from "@errand/core";
import { expect } from "vitest";
import { type EngineFixture, FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import { readScopeSpend } from "./tree-budget.js";

const it = engineTest("budget-resume");

const spentBy = (fx: EngineFixture, runId: string) =>
  readScopeSpend(fx.redis, fx.errand.keys, runId, runId);

function loggedTokens(events: readonly RunEvent[]): number {
  return events.reduce(
    (sum, event) =>
      event.type === "model-responded"
        ? sum + event.data.usage.inputTokens + event.data.usage.outputTokens
        : sum,
    0,
  );
}

it("a run resumed after its worker was SIGKILLed debits no response twice", async ({ fx }) => {
  const workerA = await fx.spawn("budget-killed-a", FAST_TAKEOVER);
  const { runId } = await fx.errand.fire({
    agent: TEST_AGENTS.plain,
    input: {
      script: [
        { call: [{ tool: "bump", args: {} }] },
        { sleepMs: 3_000, call: [{ tool: "bump", args: {} }] },
        { say: "done" },
      ],
    },
    budget: { tokens: 1_000_000, steps: 10 },
  });
  await workerA.waitForLine(
    (line) => line.msg === "model request" && line.runId === runId && line.step === 2,
    "the model request of step 2",
  );
  const beforeKill = await fx.errand.store.readLog(runId);
  const debitedBeforeKill = await spentBy(fx, runId);
  expect(debitedBeforeKill.spent).toMatchObject({ steps: 1, tokens: loggedTokens(beforeKill) });

  workerA.signal("SIGKILL");
  expect(await workerA.exited).toMatchObject({ signal: "SIGKILL" });
  const workerB = await fx.spawn("budget-rescuer-b", FAST_TAKEOVER);
  const events = await fx.waitForEvent(runId);
  // A response is debited right after its append: the run's end is logged once the last debit is done.
  await workerB.waitForLine(
    (line) => line.msg === "run ended" && line.runId === runId,
    "the end of the resumed run",
  );

  expect(events.at(-1)?.type).toBe("finished");
  expect(events.filter((event) => event.type === "run-started")).toHaveLength(2);
  const { spent } = await spentBy(fx, runId);
  expect(spent.steps).toBe(3);
  expect(spent.tokens).toBe(loggedTokens(events));
  expect(spent.runs).toBe(1);
});
