/**
 * Waitpoints in the runtime: `ask` parks its run on a new waitpoint (its
 * `waitpoint-created` in the step's append, before `run-parked`), and the
 * call run again once the waitpoint closed answers with the answer, or that
 * it timed out, or fails the run when the agent asked for that.
 */
import { type NewEvent, settleRun } from "@errand/core";
import { waitpointToken } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./agent.js";
import { isParkRequest } from "./errors.js";
import { createMemorySink, type MemorySink } from "./memory-sink.js";
import { runSteps } from "./run-steps.js";
import { scriptedModel } from "./scripted-model.js";
import { startRun, typesOf } from "./test-support/runs.js";
import { defineTool } from "./tool.js";
import { type AskToolOptions, askTool, checkAnswer, waitForAnswer } from "./waitpoint.js";

const APPROVAL = z.object({ approve: z.boolean(), note: z.string() });

function askingAgent(options: AskToolOptions = {}) {
  return defineAgent({
    name: "refunds",
    instructions: "Ask before refunding.",
    model: scriptedModel(),
    tools: [askTool({ answerSchema: APPROVAL, ...options })],
    script: [{ call: [{ tool: "ask", args: { question: "Refund 80 EUR?" } }] }, { say: "done" }],
  });
}

const signal = new AbortController().signal;

/** Runs `agent` until it parks; resolves with the run's id and the parked state. */
async function parkedRun(sink: MemorySink, agent: ReturnType<typeof askingAgent>) {
  const started = await startRun(sink, agent);
  const parked = await runSteps({ agent, state: started, sink, signal }).catch((e: unknown) => e);
  expect(isParkRequest(parked)).toBe(true);
  return sink.state(started.runId);
}

/** Appends `events` and `run-started` (the same attempt), then steps the run to its end. */
async function resume(
  sink: MemorySink,
  agent: ReturnType<typeof askingAgent>,
  runId: string,
  events: NewEvent[],
) {
  const at = new Date().toISOString();
  await sink.append(runId, sink.state(runId).seq, [
    ...events,
    { type: "run-started", at, data: { attempt: 1, workerId: "w2" } },
  ]);
  return runSteps({ agent, state: sink.state(runId), sink, signal });
}

function resultOf(sink: MemorySink, runId: string): unknown {
  const result = sink.events(runId).find((e) => e.type === "tool-result");
  return result?.type === "tool-result" ? result.data.result : undefined;
}

describe("the ask tool", () => {
  it("parks its run on a waitpoint named by its run, step and call", async () => {
    const sink = createMemorySink();
    const agent = askingAgent({ timeoutMs: 60_000 });
    const state = await parkedRun(sink, agent);
    expect(typesOf(sink.events(state.runId))).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "waitpoint-created",
      "run-parked",
    ]);
    const [waitpoint] = state.waitpoints;
    const callId = state.steps[0]?.calls[0]?.callId ?? "";
    expect(waitpoint).toMatchObject({
      token: waitpointToken({ runId: state.runId, step: 1, callId }),
      question: "Refund 80 EUR?",
      status: "waiting",
      onTimeout: "result",
      answerSchema: expect.objectContaining({ required: ["approve", "note"] }),
    });
    expect(Date.parse(waitpoint!.timeoutAt!) - Date.parse(waitpoint!.createdAt)).toBe(60_000);
    expect(state.parked).toMatchObject({
      waitFor: [],
      reason: "waiting for an answer: Refund 80 EUR?",
    });
  });

  it("answers with the answer and who gave it once the waitpoint is answered", async () => {
    const sink = createMemorySink();
    const agent = askingAgent();
    const state = await parkedRun(sink, agent);
    const token = state.waitpoints[0]!.token;
    const answer = { approve: true, note: "fine" };
    const at = new Date().toISOString();
    const settled = await resume(sink, agent, state.runId, [
      { type: "waitpoint-completed", at, data: { token, answer, answeredBy: "ada" } },
    ]);
    expect(resultOf(sink, state.runId)).toEqual({
      answered: true,
      answer,
      answeredBy: "ada",
      answeredAt: at,
    });
    expect(settleRun(settled)).toMatchObject({ status: "succeeded", text: "done", attempts: 1 });
  });

  it("answers that it timed out, and the model goes on", async () => {
    const sink = createMemorySink();
    const agent = askingAgent({ timeoutMs: 1_000 });
    const state = await parkedRun(sink, agent);
    const { token, timeoutAt } = state.waitpoints[0]!;
    const at = new Date().toISOString();
    const settled = await resume(sink, agent, state.runId, [
      { type: "waitpoint-timed-out", at, data: { token } },
    ]);
    expect(resultOf(sink, state.runId)).toEqual({
      answered: false,
      timedOut: true,
      message: `No answer came before the waitpoint timed out at ${timeoutAt}: decide how to go on without one.`,
    });
    expect(settleRun(settled)?.status).toBe("succeeded");
  });

  it("fails the run waitpoint_timeout on timeout when the agent asks for that", async () => {
    const sink = createMemorySink();
    const agent = askingAgent({ timeoutMs: 1_000, onTimeout: "fail" });
    const state = await parkedRun(sink, agent);
    const { token } = state.waitpoints[0]!;
    const at = new Date().toISOString();
    const settled = await resume(sink, agent, state.runId, [
      { type: "waitpoint-timed-out", at, data: { token } },
    ]);
    expect(settleRun(settled)?.error).toMatchObject({
      code: "waitpoint_timeout",
      retryable: false,
    });
  });

  it("refuses an answer schema outside the supported subset when the tool is made", () => {
    expect(() =>
      askTool({ answerSchema: { type: "object", properties: { a: { type: "string" } } } }),
    ).toThrow(expect.objectContaining({ code: "unsupported_schema" }));
    expect(() => askTool({ timeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: "invalid_spec" }),
    );
  });
});

describe("waitForAnswer in a tool of one's own", () => {
  it("gives the tool its waitpoint's token before it parks, the same when the call runs again", async () => {
    const tokens: string[] = [];
    const approve = defineTool({
      name: "approve",
      description: "Gets an approval.",
      parameters: z.object({}),
      handler: (_args, ctx) => {
        tokens.push(ctx.waitpoint.token);
        return waitForAnswer(ctx, { question: "Approve?" });
      },
    });
    const agent = defineAgent({
      name: "approver",
      instructions: "Get approval.",
      model: scriptedModel(),
      tools: [approve],
      script: [{ call: [{ tool: "approve", args: {} }] }, { say: "done" }],
    });
    const sink = createMemorySink();
    const started = await startRun(sink, agent);
    await runSteps({ agent, state: started, sink, signal }).catch(() => undefined);
    const at = new Date().toISOString();
    await resume(sink, agent, started.runId, [
      { type: "waitpoint-completed", at, data: { token: tokens[0]!, answer: "yes" } },
    ]);
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).toBe(tokens[0]);
    expect(resultOf(sink, started.runId)).toMatchObject({ answered: true, answer: "yes" });
  });
});

describe("checkAnswer", () => {
  const schema = z.toJSONSchema(APPROVAL) as Record<string, unknown>;

  it("accepts an answer that matches and refuses one that does not, with the issues", () => {
    expect(checkAnswer(schema, { approve: false, note: "no" })).toEqual({ ok: true });
    const refused = checkAnswer(schema, { approve: "yes" });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? [] : refused.issues).toEqual(
      expect.arrayContaining([expect.stringContaining("approve"), expect.stringContaining("note")]),
    );
  });

  it("takes any JSON value without a schema, but not what is not JSON", () => {
    expect(checkAnswer(undefined, "yes")).toEqual({ ok: true });
    expect(checkAnswer(undefined, Number.NaN).ok).toBe(false);
  });
});
