/**
 * Each tool's answers by the result rules, through the official SDK client:
 * list_agents' agents; start_runs' per-item outcomes (a bad item fails alone
 * with its code and fix, a key fires once); progress notifications while
 * wait_runs waits; get_run's summary, full result and pages of events;
 * list_waiting's answer schema and answer_waiting refusing a wrong answer
 * with the issues; cancel_runs per item; errors as `isError` answers with
 * errand's code, `retryable` and the fix, never a stack — arguments off a
 * tool's input schema and an unknown tool too, not the SDK's line of text.
 */
import { randomBytes } from "node:crypto";
import { newRunId } from "@errand/core";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APPROVAL_SCHEMA,
  type McpStack,
  startMcpStack,
  TEST_DASHBOARD_URL,
  type ToolAnswer,
} from "./test-support/mcp-stack.js";

let stack: McpStack;

beforeAll(async () => {
  stack = await startMcpStack();
});

afterAll(async () => {
  await stack?.stop();
});

/** A well-formed run id no run has. */
function neverFired(): string {
  return newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(16) });
}

/** Starts one run of `agent` playing `script`; its runId. */
async function startOne(agent: string, script: unknown[]): Promise<string> {
  const answer = await stack.call("start_runs", { runs: [{ agent, input: { script } }] });
  expect(answer.value.succeeded, JSON.stringify(answer.value)).toBe(1);
  return answer.value.results[0].runId;
}

/** Calls `tool` with `args` until `done` holds of its answer's value (bounded). */
async function until(
  tool: string,
  args: Record<string, unknown>,
  done: (value: ToolAnswer["value"]) => boolean,
) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const answer = await stack.call(tool, args);
    if (done(answer.value)) return answer.value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${tool} never answered as awaited`);
}

describe("errand's MCP tools", () => {
  it("lists the agents with their descriptions, versions and live workers", async () => {
    const tools = (await stack.client.listTools()).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "answer_waiting",
      "cancel_runs",
      "get_run",
      "list_agents",
      "list_waiting",
      "start_runs",
      "wait_runs",
    ]);
    const byName = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    expect(byName.get("wait_runs")).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.get("cancel_runs")).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    const agents = (await stack.call("list_agents", {})).value;
    expect(agents).toMatchObject({ count: 3, hasMore: false });
    const echo = agents.items.find((agent: { name: string }) => agent.name === "echo");
    expect(echo).toMatchObject({ description: "Plays the script it is given.", liveWorkers: 1 });
    expect(echo.versions[0]).toMatchObject({ live: true });
  });

  it("starts a batch item by item: a bad item fails alone with its code and fix; a key fires once", async () => {
    const answer = await stack.call("start_runs", {
      runs: [
        { agent: "echo", input: { script: [{ say: "one" }] }, idempotencyKey: "mcp-once" },
        { agent: "nobody", input: null },
        { input: { script: [] } },
        { agent: "echo", input: { script: [{ say: "again" }] }, idempotencyKey: "mcp-once" },
      ],
    });
    const { value } = answer;
    expect(answer.isError).toBe(false);
    expect(value).toMatchObject({ total: 4, succeeded: 2, failed: 2 });
    const [first, unknown, noAgent, again] = value.results;
    expect(first).toMatchObject({ ok: true, agent: "echo", status: "queued" });
    expect(first.viewUrl).toBe(`${TEST_DASHBOARD_URL}/#/runs/${first.runId}`);
    expect(unknown).toMatchObject({
      ok: false,
      agent: "nobody",
      error: { code: "unknown_agent" },
      retryable: false,
    });
    expect(unknown.error.fix).toContain("list_agents");
    expect(noAgent).toMatchObject({ ok: false, error: { code: "invalid_spec" } });
    expect(again).toMatchObject({ ok: true, runId: first.runId, deduplicated: true });
    expect(value.nextAction).toEqual({
      tool: "wait_runs",
      args: { runIds: [first.runId, first.runId] },
    });
    expect(value.retryAction).toBeUndefined();
  });

  it("reports progress while wait_runs waits, over the whole set", async () => {
    const runs = [200, 600, 1_000].map((sleepMs) => ({
      agent: "echo",
      input: { script: [{ say: `slept ${sleepMs}`, sleepMs }] },
    }));
    const started = (await stack.call("start_runs", { runs })).value;
    const progress: Progress[] = [];
    const answer = await stack.call("wait_runs", started.nextAction.args, (p) => progress.push(p));
    expect(answer.value).toMatchObject({ total: 3, succeeded: 3, pending: 0, hasMore: false });
    expect(answer.value.nextAction).toBeUndefined();
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((p) => p.total === 3)).toBe(true);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(values.at(-1)).toBe(3);
  });

  it("gets a run as a summary, in full, and its events a page at a time", async () => {
    const runId = await startOne("echo", [{ say: "hello" }]);
    await stack.call("wait_runs", { runIds: [runId] });
    const summary = (await stack.call("get_run", { runId })).value;
    expect(summary).toEqual({
      runId,
      ok: true,
      status: "succeeded",
      text: "hello",
      viewUrl: `${TEST_DASHBOARD_URL}/#/runs/${runId}`,
    });
    const full = (await stack.call("get_run", { runId, detail: "full" })).value;
    expect(full).toMatchObject({ runId, agent: "echo", attempts: 1, steps: 1, text: "hello" });
    expect(full.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const seqs: number[] = [];
    let args: Record<string, unknown> | undefined = { runId, detail: "events", limit: 2 };
    while (args !== undefined) {
      const page: ToolAnswer["value"] = (await stack.call("get_run", args)).value;
      expect(page.count).toBe(page.items.length);
      expect(page.hasMore).toBe(page.nextAction !== undefined);
      seqs.push(...page.items.map((event: { seq: number }) => event.seq));
      args = page.nextAction?.args;
    }
    expect(seqs.length).toBeGreaterThanOrEqual(4);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });

  it("lists a run waiting for a person with its answer schema, refuses a wrong answer with the issues, takes a right one", async () => {
    const runId = await startOne("approver", [
      { call: [{ tool: "ask", args: { question: "Ship it?" } }] },
      { say: "shipped" },
    ]);
    const waiting = await until("list_waiting", { runId }, (value) => value.count === 1);
    const [item] = waiting.items;
    expect(item).toMatchObject({
      runId,
      agent: "approver",
      question: "Ship it?",
      answerSchema: APPROVAL_SCHEMA,
    });
    const wrong = await stack.call("answer_waiting", {
      token: item.token,
      answer: { approve: "yes" },
    });
    expect(wrong.isError).toBe(true);
    expect(wrong.value.error).toMatchObject({ code: "invalid_answer", retryable: false });
    expect(wrong.value.error.issues.length).toBeGreaterThan(0);
    expect(JSON.stringify(wrong.value.error.issues)).toContain("approve");
    const right = await stack.call("answer_waiting", {
      token: item.token,
      answer: { approve: true },
      answeredBy: "ada",
    });
    expect(right.value).toMatchObject({ token: item.token, runId, answered: true });
    const settled = (await stack.call(right.value.nextAction.tool, right.value.nextAction.args))
      .value;
    expect(settled.results[0]).toMatchObject({ runId, status: "succeeded", text: "shipped" });
    const second = await stack.call("answer_waiting", {
      token: item.token,
      answer: { approve: false },
    });
    expect(second.value.error.code).toMatch(/waitpoint_answered|run_settled/);
  });

  it("cancels runs item by item: a running one is cancelled, an unknown one fails alone", async () => {
    const runId = await startOne("echo", [{ say: "never", sleepMs: 60_000 }]);
    await until("get_run", { runId, detail: "events" }, (value) =>
      value.items.some((event: { type: string }) => event.type === "run-started"),
    );
    const unknownId = neverFired();
    const cancelled = (
      await stack.call("cancel_runs", { runIds: [runId, unknownId], reason: "test" })
    ).value;
    expect(cancelled).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
    expect(cancelled.results[0]).toMatchObject({ runId, ok: true, requested: true });
    expect(cancelled.results[1]).toMatchObject({
      runId: unknownId,
      ok: false,
      error: { code: "not_found" },
    });
    expect(cancelled.results[1].error.fix).toBeTypeOf("string");
    const settled = (await stack.call("wait_runs", cancelled.nextAction.args)).value;
    expect(settled.results[0]).toMatchObject({ runId, status: "cancelled", ok: false });
  });

  it("answers errors as isError results with errand's code, retryable and the fix, never a stack", async () => {
    const runId = await startOne("echo", [{ say: "x" }]);
    const badCursor = await stack.call("wait_runs", {
      runIds: [runId, runId],
      cursor: "bm90IGEgY3Vyc29y",
    });
    expect(badCursor.isError).toBe(true);
    expect(badCursor.value.error).toMatchObject({ code: "invalid_spec", retryable: false });
    expect(badCursor.value.error.fix).toBeTypeOf("string");
    const missing = await stack.call("get_run", { runId: neverFired() });
    expect(missing.value.error.code).toBe("not_found");
    for (const answer of [badCursor, missing]) {
      expect(JSON.stringify(answer.value)).not.toMatch(/\n\s+at |\.ts:\d+/);
    }
    const unreadable = stack.client.readResource({ uri: "errand://runs/nope/result" });
    await expect(unreadable).rejects.toThrow(/MCP error -32002/);
    expect(stack.unexpected).toEqual([]);
  });

  it("refuses arguments off a tool's input schema as errand's invalid_spec, naming each field", async () => {
    // runIds missing, waitSeconds past its maximum, detail ill-typed: the tool never runs.
    const offSchema = await stack.call("wait_runs", { waitSeconds: 61, detail: 3 });
    expect(offSchema.isError).toBe(true);
    expect(offSchema.value.error).toMatchObject({
      code: "invalid_spec",
      retryable: false,
      fix: "correct the arguments named in the message and call again",
    });
    expect(offSchema.value.error.issues.map((issue: { path: string }) => issue.path)).toEqual([
      "runIds",
      "waitSeconds",
      "detail",
    ]);
    expect(offSchema.value.error.message).toMatch(
      /^invalid arguments for wait_runs: runIds: expected array, received undefined; waitSeconds: .*60/,
    );
    const noTool = await stack.call("wait_for_everything", {});
    expect(noTool.isError).toBe(true);
    expect(noTool.value.error).toMatchObject({ code: "invalid_spec", retryable: false });
    expect(noTool.value.error.message).toContain("errand's tools are list_agents, start_runs");
    expect(stack.unexpected).toEqual([]);
  });
});
