/**
 * How runs end when they cannot finish: limits, cancellation, model failures
 * (with retries), and scripts taken from the run input.
 */
import type { Script } from "@errand/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemorySink } from "./memory-sink.js";
import { runSteps } from "./run-steps.js";
import { scriptedModel } from "./scripted-model.js";
import { addTool, scriptedAgent } from "./test-support/agents.js";
import { play } from "./test-support/play.js";
import { recordingModel, startRun, typesOf } from "./test-support/runs.js";
import { defineTool } from "./tool.js";

describe("runSteps: limits", () => {
  const loop: Script = Array.from({ length: 5 }, () => ({
    call: [{ tool: "add", args: { a: 1, b: 1 } }],
  }));

  it("fails with max_steps when the run would exceed maxSteps", async () => {
    const run = await play(scriptedAgent(loop, { tools: [addTool], maxSteps: 2 }));
    expect(run.requests).toHaveLength(2);
    expect(run.events.at(-1)).toMatchObject({
      type: "failed",
      data: {
        code: "max_steps",
        message: "the run reached its limit of 2 steps",
        retryable: false,
      },
    });
  });

  it("fails with timeout, counting from the run's first start, without asking the model", async () => {
    const startedAt = "2026-01-01T00:00:00.000Z";
    const run = await play(scriptedAgent(loop, { tools: [addTool], timeoutMs: 60_000 }), {
      at: startedAt,
      now: () => new Date("2026-01-01T00:01:00.000Z"),
    });
    expect(run.requests).toHaveLength(0);
    expect(run.events).toMatchObject([
      {
        type: "failed",
        data: { code: "timeout", message: "the run exceeded its timeout of 60000 ms" },
      },
    ]);
  });

  it("fails with timeout when the time runs out during a model call", async () => {
    const run = await play(scriptedAgent([{ say: "late", sleepMs: 60_000 }], { timeoutMs: 50 }));
    expect(run.requests).toHaveLength(1);
    expect(run.events).toMatchObject([{ type: "failed", data: { code: "timeout" } }]);
  });
});

describe("runSteps: cancellation", () => {
  it("aborts a slow model call and writes cancelled with the reason", async () => {
    const agent = scriptedAgent([{ say: "late", sleepMs: 60_000 }]);
    const sink = createMemorySink();
    const state = await startRun(sink, agent);
    const model = recordingModel(scriptedModel());
    const controller = new AbortController();
    const running = runSteps({ agent, state, model, sink, signal: controller.signal });
    await expect.poll(() => model.requests.length).toBe(1);
    controller.abort("user pressed stop");
    const settled = await running;
    expect(settled.status).toBe("cancelled");
    expect(typesOf(sink.events(state.runId))).toEqual(["run-queued", "run-started", "cancelled"]);
    expect(sink.events(state.runId)[2]?.data).toEqual({ reason: "user pressed stop" });
  });

  it("aborts a running tool through its signal and writes cancelled", async () => {
    const controller = new AbortController();
    let started = false;
    const wait = defineTool({
      name: "wait",
      description: "Waits until aborted.",
      parameters: z.object({}),
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          started = true;
          ctx.signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    });
    const agent = scriptedAgent([{ call: [{ tool: "wait", args: {} }] }], { tools: [wait] });
    const running = play(agent, { signal: controller.signal });
    await expect.poll(() => started).toBe(true);
    controller.abort();
    const run = await running;
    expect(typesOf(run.events)).toEqual(["model-responded", "cancelled"]);
    expect(run.result?.status).toBe("cancelled");
  });

  it("writes cancelled when the log holds a cancel-requested", async () => {
    const agent = scriptedAgent([{ say: "hi" }]);
    const sink = createMemorySink();
    const started = await startRun(sink, agent);
    const [request] = await sink.append(started.runId, started.seq, [
      {
        type: "cancel-requested",
        at: new Date().toISOString(),
        data: { reason: "parent cancelled" },
      },
    ]);
    const model = recordingModel(scriptedModel());
    const state = await runSteps({
      agent,
      state: sink.state(started.runId),
      model,
      sink,
      signal: new AbortController().signal,
    });
    expect(request?.type).toBe("cancel-requested");
    expect(model.requests).toHaveLength(0);
    expect(state.status).toBe("cancelled");
    expect(sink.events(started.runId).at(-1)?.data).toEqual({ reason: "parent cancelled" });
  });
});

describe("runSteps: model failures", () => {
  it("retries a 500 and goes on with the next turn", async () => {
    const run = await play(
      scriptedAgent([{ fail: "overloaded", status: 500 }, { say: "fine now" }]),
    );
    expect(run.requests).toHaveLength(2);
    expect(run.result).toMatchObject({ status: "succeeded", text: "fine now", steps: 1 });
  });

  it("waits the retry-after of a 429 before retrying", async () => {
    const waits: number[] = [];
    const run = await play(
      scriptedAgent([{ fail: "slow down", status: 429, retryAfterSeconds: 2.5 }, { say: "ok" }]),
      { retry: { sleep: async (ms) => void waits.push(ms) } },
    );
    expect(waits).toEqual([2500]);
    expect(run.result).toMatchObject({ status: "succeeded", text: "ok" });
  });

  it("fails with a non-retryable model_error when a turn fails without a retryable status", async () => {
    const run = await play(scriptedAgent([{ fail: "the model is gone" }, { say: "never" }]));
    expect(run.requests).toHaveLength(1);
    expect(run.events).toMatchObject([
      {
        type: "failed",
        data: { code: "model_error", message: "the model is gone", retryable: false },
      },
    ]);
  });

  it("fails with a retryable model_error when retries run out", async () => {
    const failing = Array.from({ length: 3 }, () => ({ fail: "busy", status: 503 }));
    const run = await play(scriptedAgent([...failing, { say: "too late" }]), {
      retry: { maxRetries: 2 },
    });
    expect(run.requests).toHaveLength(3);
    expect(run.events).toMatchObject([
      { type: "failed", data: { code: "model_error", message: "busy", retryable: true } },
    ]);
  });
});

describe("runSteps: scripts from the input", () => {
  const fromInput = scriptedAgent([{ say: "the agent's own script" }], { scriptFromInput: true });

  it("plays input.script when the agent allows it", async () => {
    const run = await play(fromInput, { input: { topic: "x", script: [{ say: "from input" }] } });
    expect(run.result).toMatchObject({ status: "succeeded", text: "from input" });
  });

  it("plays the agent's script when the agent does not allow it", async () => {
    const run = await play(scriptedAgent([{ say: "own" }]), {
      input: { script: [{ say: "ignored" }] },
    });
    expect(run.result).toMatchObject({ text: "own" });
  });

  it("fails with a non-retryable model_error for an invalid input.script", async () => {
    const run = await play(fromInput, { input: { script: [{ shout: "?" }] } });
    expect(run.events).toMatchObject([
      { type: "failed", data: { code: "model_error", retryable: false } },
    ]);
    expect(run.events[0]?.data).toMatchObject({
      message: expect.stringMatching(/^invalid script in input.script: /),
    });
  });
});
