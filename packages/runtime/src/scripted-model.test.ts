import type { Script } from "@errand/core";
import { describe, expect, it } from "vitest";
import { defineAgent } from "./agent.js";
import { ModelError } from "./errors.js";
import type { Agent, ModelRequest } from "./model.js";
import { scriptedModel, scriptFor } from "./scripted-model.js";

function agentWith(script: Script, scriptFromInput = false): Agent {
  return defineAgent({ name: "s", instructions: "i", model: "m", script, scriptFromInput });
}

function request(agent: Agent, step: number, runId = "R1", input: unknown = "go"): ModelRequest {
  return {
    runId,
    step,
    messages: [{ role: "user", content: "go" }],
    tools: [],
    settings: {},
    agent,
    input,
  };
}

const live = () => new AbortController().signal;

describe("scriptedModel", () => {
  it("answers each step with its turn: text, or tool calls with per-step call ids", async () => {
    const agent = agentWith([
      {
        call: [
          { tool: "a", args: { x: 1 } },
          { tool: "b", args: '{"y":2}' },
        ],
      },
      { say: "done" },
    ]);
    const model = scriptedModel();
    const first = await model.respond(request(agent, 1), live());
    expect(first).toMatchObject({
      calls: [
        { callId: "call_1_1", name: "a", args: { x: 1 } },
        { callId: "call_1_2", name: "b", args: { y: 2 } },
      ],
      finish: "tool_calls",
    });
    expect(first.text).toBeUndefined();
    const second = await model.respond(request(agent, 2), live());
    expect(second).toMatchObject({ text: "done", calls: [], finish: "stop" });
    expect(second.usage.inputTokens).toBeGreaterThan(0);
  });

  it("answers with empty text once the script runs out", async () => {
    const response = await scriptedModel().respond(request(agentWith([]), 1), live());
    expect(response).toMatchObject({ text: "", calls: [], finish: "stop" });
  });

  it("fails a fail turn, retryable only for 429 or 5xx, and serves the next turn to the retry", async () => {
    const agent = agentWith([
      { fail: "busy", status: 429, retryAfterSeconds: 2 },
      { fail: "broken" },
      { say: "finally" },
    ]);
    const model = scriptedModel();
    const busy = await model.respond(request(agent, 1), live()).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ModelError);
    expect(busy).toMatchObject({
      message: "busy",
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
    });
    const broken = await model.respond(request(agent, 1), live()).catch((e: unknown) => e);
    expect(broken).toMatchObject({ message: "broken", retryable: false });
    expect(await model.respond(request(agent, 1), live())).toMatchObject({ text: "finally" });
    // Another run of the same model starts at its own first turn.
    const other = await model.respond(request(agent, 1, "R2"), live()).catch((e: unknown) => e);
    expect(other).toMatchObject({ message: "busy" });
  });

  it("gives up a sleepMs delay at once when the signal fires", async () => {
    const controller = new AbortController();
    const pending = scriptedModel().respond(
      request(agentWith([{ say: "late", sleepMs: 60_000 }]), 1),
      controller.signal,
    );
    controller.abort("enough");
    await expect(pending).rejects.toThrow("enough");
  });
});

describe("scriptFor", () => {
  const own: Script = [{ say: "own" }];

  it("takes input.script only when the agent allows it, else the agent's script", () => {
    const fromInput: Script = [{ say: "input" }];
    expect(scriptFor(agentWith(own, true), { script: fromInput })).toEqual(fromInput);
    expect(scriptFor(agentWith(own, true), { other: 1 })).toEqual(own);
    expect(scriptFor(agentWith(own, false), { script: fromInput })).toEqual(own);
  });

  it("refuses an invalid input.script with a non-retryable ModelError", () => {
    expect(() => scriptFor(agentWith(own, true), { script: [{ say: 1 }] })).toThrow(
      expect.objectContaining({ code: "model_error", retryable: false }),
    );
  });
});
