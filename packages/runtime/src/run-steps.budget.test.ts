/**
 * The agent loop's two budget hooks: the gate asked before each model
 * request (a refusal fails the run `budget_exceeded` without the request),
 * and the price written on each `model-responded`.
 */
import type { Script } from "@errand/core";
import { describe, expect, it } from "vitest";
import { addTool, scriptedAgent } from "./test-support/agents.js";
import { play } from "./test-support/play.js";

const loop: Script = Array.from({ length: 5 }, () => ({
  call: [{ tool: "add", args: { a: 1, b: 1 } }],
}));

describe("runSteps: budgets", () => {
  it("asks the gate before each request and fails budget_exceeded, without the request, once it refuses", async () => {
    const asked: number[] = [];
    const run = await play(scriptedAgent(loop, { tools: [addTool] }), {
      budget: {
        beforeRequest: async (step) => {
          asked.push(step);
          return step === 3 ? "the budget of run R is exhausted: steps, limit 2" : undefined;
        },
      },
    });
    expect(asked).toEqual([1, 2, 3]);
    expect(run.requests).toHaveLength(2);
    expect(run.result).toMatchObject({
      status: "failed",
      steps: 2,
      error: {
        code: "budget_exceeded",
        message: "the budget of run R is exhausted: steps, limit 2",
      },
    });
  });

  it("writes each response's price on its model-responded, and the result sums them", async () => {
    const run = await play(scriptedAgent(loop.slice(0, 2), { tools: [addTool] }), {
      priceResponse: (usage) => usage.inputTokens * 0.001 + usage.outputTokens * 0.002,
    });
    const responded = run.events.flatMap((event) =>
      event.type === "model-responded" ? [event.data] : [],
    );
    expect(responded).toHaveLength(3);
    for (const { usage, costUsd } of responded) {
      expect(costUsd).toBe(usage.inputTokens * 0.001 + usage.outputTokens * 0.002);
    }
    const total = responded.reduce((sum, { costUsd }) => sum + (costUsd ?? 0), 0);
    expect(run.result?.costUsd).toBeCloseTo(total, 9);
  });

  it("leaves responses unpriced without a pricer: no costUsd anywhere", async () => {
    const run = await play(scriptedAgent([{ say: "hi" }]));
    expect(
      run.events.some((event) => event.type === "model-responded" && "costUsd" in event.data),
    ).toBe(false);
    expect(run.result).not.toHaveProperty("costUsd");
  });
});
