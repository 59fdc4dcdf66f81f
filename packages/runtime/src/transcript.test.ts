/**
 * The transcript of a run of many steps: each step's messages are built
 * once and handed, the same objects, to every later model request, so a
 * step costs the same whether it is a run's 2nd or its 200th; and a
 * transcript rebuilt from the state alone equals one built step by step.
 * Past its budget, the oldest steps are left out whole, and the state a run
 * keeps drops what they held.
 */
import { initialRunState, type RunState, type Script } from "@errand/core";
import { applyEventInPlace, TRANSCRIPT_BUDGET_CHARS } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { TranscriptMessage } from "./model.js";
import { addTool, scriptedAgent } from "./test-support/agents.js";
import { play } from "./test-support/play.js";
import { defineTool } from "./tool.js";
import { buildTranscript, trimToTranscriptInPlace } from "./transcript.js";

const STEPS = 6;

describe("buildTranscript over many steps", () => {
  it("hands every later request the same messages of a step, built once", async () => {
    const script: Script = [
      ...Array.from({ length: STEPS }, (_, index) => ({
        call: [{ tool: "add", args: { a: index, b: 1 } }],
      })),
      { say: "done" },
    ];
    const agent = scriptedAgent(script, { tools: [addTool], maxSteps: 2 * STEPS });
    const run = await play(agent);
    expect(run.requests).toHaveLength(STEPS + 1);
    const last = run.requests.at(-1)!.messages;
    // system, user, then an assistant message and a tool message per step.
    expect(last).toHaveLength(2 + 2 * STEPS);
    run.requests.forEach((request, index) => {
      // Request k+1 holds steps 1 … k: each message is the very object the last request holds.
      expect(request.messages).toHaveLength(2 + 2 * index);
      request.messages.slice(2).forEach((message, at) => {
        expect(message).toBe(last[2 + at]);
      });
    });
    expect(last.filter((message) => message.role === "tool").map((m) => m.content)).toEqual(
      Array.from({ length: STEPS }, (_, index) => JSON.stringify({ sum: index + 1 })),
    );
    // Rebuilt from the settled state alone, without the cache of the run's own steps, it reads the same.
    const rebuilt = buildTranscript(agent, structuredClone(run.state));
    expect(rebuilt.slice(0, last.length)).toEqual(last);
  });
});

describe("buildTranscript within its budget", () => {
  const LONG_STEPS = 40;
  const RESULT_CHARS = 15_000;
  const echoTool = defineTool({
    name: "echo",
    description: "Echoes a long text.",
    parameters: z.object({ n: z.number() }),
    handler: ({ n }) => `${n}:${"x".repeat(RESULT_CHARS)}`,
  });
  const script: Script = [
    ...Array.from({ length: LONG_STEPS }, (_, n) => ({ call: [{ tool: "echo", args: { n } }] })),
    { say: "done" },
  ];
  const chars = (messages: readonly TranscriptMessage[]) =>
    messages
      .slice(2)
      .reduce(
        (sum, m) =>
          sum +
          (m.role === "assistant"
            ? (m.content?.length ?? 0) + JSON.stringify(m.calls).length
            : m.content.length),
        0,
      );

  it("leaves the oldest steps out whole, says so, and reads the same rebuilt from the whole log", async () => {
    const agent = scriptedAgent(script, { tools: [echoTool], maxSteps: LONG_STEPS + 2 });
    const run = await play(agent);
    expect(run.result?.status).toBe("succeeded");

    const last = run.requests.at(-1)!.messages;
    const note = last[2]!;
    if (note.role !== "user")
      throw new Error(`expected the note of steps left out, got ${note.role}`);
    const leftOut = Number(/Steps 1–(\d+) /.exec(note.content)?.[1]);
    expect(leftOut).toBeGreaterThan(0);
    // The steps after the note are the newest, in order, up to the last one.
    const kept = last.filter((m) => m.role === "tool").map((m) => m.content.split(":")[0]);
    expect(kept).toEqual(
      Array.from({ length: LONG_STEPS - leftOut }, (_, i) => String(leftOut + i)),
    );
    expect(chars(last.slice(1))).toBeLessThanOrEqual(TRANSCRIPT_BUDGET_CHARS + note.content.length);
    // One more step would not have fitted.
    expect(chars(last.slice(1)) + RESULT_CHARS).toBeGreaterThan(TRANSCRIPT_BUDGET_CHARS);

    // Rebuilt from the whole log (a resumed run), and from the trimmed state the run kept, both
    // without the closing step the last request answered: the same.
    const beforeLast = (state: RunState): RunState => ({
      ...state,
      steps: state.steps.slice(0, -1),
    });
    const whole = beforeLast(run.sink.state(run.runId));
    expect(buildTranscript(agent, whole)).toEqual(last);
    expect(buildTranscript(agent, beforeLast(run.state))).toEqual(last);
    expect(buildTranscript(agent, trimToTranscriptInPlace(whole))).toEqual(last);
    // The state the run kept holds no text of a step left out.
    expect(run.state.steps).toHaveLength(LONG_STEPS + 1);
    expect(run.state.steps[0]!.calls[0]).toEqual({
      callId: "call_1_1",
      name: "echo",
      args: undefined,
      called: true,
      outcome: { kind: "result", ok: true, truncated: false },
    });
    expect(run.state.steps[leftOut]!.calls[0]!.outcome).toHaveProperty("result");
  });
  it("trims in place each step once, as it is left out: the steps trimmed before stay the same objects", async () => {
    const agent = scriptedAgent(script, { tools: [echoTool], maxSteps: LONG_STEPS + 2 });
    const run = await play(agent);
    const log = run.sink.events(run.runId);
    const state = initialRunState(run.runId);
    const steps = state.steps;
    let trimmedBefore: RunState["steps"] = [];
    let trims = 0;
    for (const event of log) {
      trimToTranscriptInPlace(applyEventInPlace(state, event));
      expect(state.steps).toBe(steps);
      const trimmed = steps.filter(
        (step) => step.calls.length > 0 && step.calls.every((c) => c.args === undefined),
      );
      // The steps trimmed at an earlier event are the very objects still: none is trimmed twice.
      for (const [index, step] of trimmedBefore.entries()) expect(trimmed[index]).toBe(step);
      if (trimmed.length > trimmedBefore.length) trims += 1;
      trimmedBefore = trimmed;
    }

    expect(trimmedBefore.length).toBeGreaterThan(0);
    expect(trims).toBeGreaterThan(1);
    expect(buildTranscript(agent, state)).toEqual(
      buildTranscript(agent, run.sink.state(run.runId)),
    );
  });
});
