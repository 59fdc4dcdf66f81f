/**
 * A parent that knows nothing but the tool results: it starts 50 runs (one
 * of them fails the first time with a retryable error), then calls exactly
 * what the answers suggest — each `nextAction` and `retryAction`, as they
 * are — until none is left. Every run ends collected, the failed one fired
 * again and collected as succeeded, and no call named a tool or arguments
 * that no answer suggested.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpStack, startMcpStack } from "./test-support/mcp-stack.js";

let stack: McpStack;

beforeAll(async () => {
  stack = await startMcpStack();
});

afterAll(async () => {
  await stack?.stop();
});

interface Action {
  tool: string;
  args: Record<string, unknown>;
}

describe("a parent following nextAction literally", () => {
  it("collects 50 runs, fires the failed retryable one again, and calls nothing unsuggested", async () => {
    const runs = Array.from({ length: 50 }, (_, index) =>
      index === 17
        ? { agent: "flaky", input: { failOnce: "item-17", script: [{ say: "done 17" }] } }
        : { agent: "echo", input: { script: [{ say: `done ${index}` }] } },
    );
    const queue: Action[] = [{ tool: "start_runs", args: { runs } }];
    const suggested = new Set<string>();
    const settled = new Map<string, { status: string; retryable?: boolean; text?: string }>();
    const started: string[] = [];
    const tools: string[] = [];
    let calls = 0;
    while (queue.length > 0) {
      const action = queue.shift() as Action;
      if (calls > 0) expect(suggested.has(JSON.stringify(action))).toBe(true);
      calls += 1;
      expect(calls).toBeLessThan(40);
      tools.push(action.tool);
      const answer = await stack.call(action.tool, action.args);
      expect(answer.isError, JSON.stringify(answer.value)).toBe(false);
      const { value } = answer;
      if (action.tool === "start_runs") {
        for (const result of value.results) if (result.ok) started.push(result.runId);
      }
      if (action.tool === "wait_runs") {
        expect(value.hasMore).toBeTypeOf("boolean");
        expect(value.total).toBe((action.args.runIds as string[]).length);
        for (const run of value.results) {
          if (run.status !== "pending") settled.set(run.runId, run);
        }
      }
      for (const next of [value.nextAction, value.retryAction]) {
        if (next === undefined) continue;
        suggested.add(JSON.stringify(next));
        queue.push(next);
      }
    }
    expect(started).toHaveLength(51);
    expect([...settled.keys()].sort()).toEqual([...started].sort());
    const statuses = [...settled.values()].map((run) => run.status);
    expect(statuses.filter((status) => status === "succeeded")).toHaveLength(50);
    const failed = [...settled.values()].filter((run) => run.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.retryable).toBe(true);
    expect([...settled.values()].filter((run) => run.text === "done 17")).toHaveLength(1);
    expect(tools.filter((tool) => tool === "start_runs")).toHaveLength(2);
    expect(new Set(tools)).toEqual(new Set(["start_runs", "wait_runs"]));
    expect(stack.unexpected).toEqual([]);
  });
});
