import type { RunResult } from "@errand/core";
import { describe, expect, it } from "vitest";
import type { ChildRun, DemoOutcome } from "./driver.js";
import { EXPECTED, planChildren } from "./scenarios.js";
import { judgeDemo } from "./verdict.js";

const PARENT = "R0000000000000000000000000001";

function settled(
  runId: string,
  status: RunResult["status"],
  extra: Partial<RunResult> = {},
): RunResult {
  return {
    runId,
    agent: "demo-child",
    status,
    parentRunId: PARENT,
    rootRunId: PARENT,
    attempts: 1,
    steps: 1,
    usage: { inputTokens: 1, outputTokens: 1 },
    createdAt: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

/** Five children, each settled exactly as its scenario is designed to. */
function asDesigned(): DemoOutcome {
  const children: ChildRun[] = planChildren(5).map((plan) => {
    const runId = `child-${plan.index}`;
    const { status, errorCode } = EXPECTED[plan.scenario];
    const result =
      status === "succeeded"
        ? settled(runId, status, { output: plan.answer })
        : settled(runId, status, {
            error: { code: errorCode ?? "", message: "x", retryable: false },
          });
    return { runId, plan, result };
  });
  const summary = { total: 5, succeeded: 2, failed: 2, cancelled: 1 };
  return {
    parentRunId: PARENT,
    parent: settled(PARENT, "succeeded", { output: summary }),
    children,
  };
}

describe("judgeDemo", () => {
  it("finds nothing wrong when every run settled as designed", () => {
    expect(judgeDemo(asDesigned(), 5, true).problems).toEqual([]);
  });

  it("names a child that settled otherwise than designed", () => {
    const outcome = asDesigned();
    const child = outcome.children[2]!;
    child.result = settled(child.runId, "succeeded", {
      output: { city: "São Paulo", population: 1 },
    });
    outcome.parent = settled(PARENT, "succeeded", {
      output: { total: 5, succeeded: 3, failed: 1, cancelled: 1 },
    });
    expect(judgeDemo(outcome, 5, true).problems).toEqual([
      "#3 São Paulo (finished-without-answer): succeeded, designed to be failed (no_structured_output)",
    ]);
  });

  it("names a wrong answer, a missing child and a summary that does not add up", () => {
    const outcome = asDesigned();
    outcome.children[0]!.result = settled("child-0", "succeeded", {
      output: { city: "Tokyo", population: 2 },
    });
    outcome.children.pop();
    expect(judgeDemo(outcome, 5, true).problems).toEqual([
      "the parent spawned 4 children, not 5",
      '#1 Tokyo (recorded-at-once): recorded {"city":"Tokyo","population":2}, designed to record {"city":"Tokyo","population":13960000}',
      'the parent recorded {"total":5,"succeeded":2,"failed":2,"cancelled":1}, but its children came to {"total":4,"succeeded":2,"failed":1,"cancelled":1}',
    ]);
  });

  it("on a real model holds only the cancel and the parent's arithmetic to the design", () => {
    const outcome = asDesigned();
    outcome.children[2]!.result = settled("child-2", "succeeded", {
      output: { city: "São Paulo", population: 12 },
    });
    outcome.parent = settled(PARENT, "succeeded", {
      output: { total: 5, succeeded: 3, failed: 1, cancelled: 1 },
    });
    expect(judgeDemo(outcome, 5, false).problems).toEqual([]);
  });
});
