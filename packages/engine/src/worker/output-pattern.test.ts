/**
 * A schema `pattern` that makes a backtracking engine take exponential time
 * (`^(a+)+$`), a model answer built to trigger it, and two real worker
 * processes whose job locks last one second. The answer is validated in
 * linear time, so the worker holding the run keeps its lock: the other never
 * takes the job over (one attempt), the bad answer is refused with the
 * pattern named, and the corrected one is recorded. With a backtracking
 * engine the first worker would freeze far past its lock, and the second
 * would start attempt 2.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { describe, expect } from "vitest";
import { FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";

const it = engineTest("output-pattern");

it.beforeAll(async ({ fx }) => {
  await fx.spawn("worker-a", FAST_TAKEOVER);
  await fx.spawn("worker-b", FAST_TAKEOVER);
});

const WordSchema = {
  type: "object",
  properties: { word: { type: "string", pattern: "^(a+)+$" } },
  required: ["word"],
  additionalProperties: false,
};

function ofType<T extends RunEvent["type"]>(events: RunEvent[], type: T) {
  return events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
}

describe("a backtracking pattern in a run's schema", () => {
  it("validates an adversarial answer without the worker losing its lock, then records the corrected one", async ({
    fx,
  }) => {
    // 33 characters: a backtracking engine spends minutes on this one.
    const adversarial = `${"a".repeat(32)}!`;
    const script = [
      { call: [{ tool: "structured_output", args: { word: adversarial } }] },
      { call: [{ tool: "structured_output", args: { word: "aaaa" } }] },
    ];
    const { runId } = await fx.errand.fire({
      agent: TEST_AGENTS.plain,
      input: { script },
      outputSchema: WordSchema,
    });
    const events = await fx.waitForEvent(runId);

    expect(ofType(events, "run-started").map((event) => event.data.attempt)).toEqual([1]);
    expect(ofType(events, "refused").map((event) => event.data)).toEqual([
      expect.objectContaining({
        step: 1,
        reason: "invalid-arguments",
        issues: ["word: must match the pattern ^(a+)+$"],
      }),
    ]);
    expect(ofType(events, "output-recorded").map((event) => event.data.output)).toEqual([
      { word: "aaaa" },
    ]);
    expect(settleRun(foldRun(events))).toMatchObject({
      status: "succeeded",
      output: { word: "aaaa" },
      attempts: 1,
      steps: 2,
    });
  });
});
