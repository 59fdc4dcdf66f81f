/**
 * `aiSdkModel` against the AI SDK's own mock models: what a run's live
 * channel receives from a stream, the settings each specification can
 * carry, the key a worker checks at start, and usage in either shape.
 */
import type { ModelDelta } from "@errand/core";
import { defineAgent, type ModelRequest } from "@errand/runtime";
import { MockLanguageModelV4, simulateReadableStream } from "ai/test";
import { MockLanguageModelV3 } from "ai-v6/test";
import { describe, expect, it } from "vitest";
import { aiSdkModel } from "./ai-sdk-model.js";
import type { AiSdkLanguageModel } from "./language-model.js";

const agent = defineAgent({ name: "probe", instructions: "Answer.", model: "unused" });

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    runId: "run-1",
    step: 1,
    messages: [
      { role: "system", content: "Answer." },
      { role: "user", content: "Hi" },
    ],
    tools: [],
    settings: {},
    agent,
    input: "Hi",
    ...overrides,
  };
}

const usage = {
  inputTokens: { total: 12, noCache: 2, cacheRead: 6, cacheWrite: 4 },
  outputTokens: { total: 9, text: 5, reasoning: 4 },
};

describe("aiSdkModel on a stream", () => {
  it("hands text and tool-input pieces to the live channel, and logs what doGenerate would give", async () => {
    const model = new MockLanguageModelV4({
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start", warnings: [] },
            { type: "response-metadata", id: "resp-7" },
            { type: "reasoning-start", id: "r1" },
            { type: "reasoning-delta", id: "r1", delta: "Think." },
            {
              type: "reasoning-delta",
              id: "r1",
              delta: "",
              providerMetadata: { anthropic: { signature: "sig-1" } },
            },
            { type: "reasoning-end", id: "r1" },
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: "Hel" },
            { type: "text-delta", id: "t1", delta: "lo" },
            { type: "text-end", id: "t1" },
            { type: "tool-input-start", id: "c1", toolName: "add" },
            { type: "tool-input-delta", id: "c1", delta: '{"a":' },
            { type: "tool-input-delta", id: "c1", delta: "1}" },
            { type: "tool-input-end", id: "c1" },
            { type: "tool-call", toolCallId: "c1", toolName: "add", input: '{"a":1}' },
            { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
          ],
        }),
      },
    });
    const deltas: ModelDelta[] = [];
    const response = await aiSdkModel(model, { stream: true }).respond(
      request({ onDelta: (delta) => deltas.push(delta) }),
      new AbortController().signal,
    );
    expect(deltas).toEqual([
      { type: "text", text: "Hel" },
      { type: "text", text: "lo" },
      { type: "tool-arguments", index: 0, callId: "c1", name: "add", text: "" },
      { type: "tool-arguments", index: 0, text: '{"a":' },
      { type: "tool-arguments", index: 0, text: "1}" },
    ]);
    expect(response).toEqual({
      text: "Hello",
      calls: [{ callId: "c1", name: "add", args: { a: 1 } }],
      usage: {
        inputTokens: 12,
        outputTokens: 9,
        cachedInputTokens: 6,
        cacheWriteTokens: 4,
        reasoningTokens: 4,
      },
      finish: "tool_calls",
      items: [
        {
          type: "reasoning",
          summary: [],
          text: "Think.",
          providerMetadata: { anthropic: { signature: "sig-1" } },
        },
        { type: "message" },
        { type: "function_call", callId: "c1" },
      ],
      responseId: "resp-7",
    });
  });

  it("retries a stream that ends before its finish", async () => {
    const model = new MockLanguageModelV4({
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: "Hel" },
          ],
        }),
      },
    });
    await expect(
      aiSdkModel(model, { stream: true }).respond(request(), new AbortController().signal),
    ).rejects.toMatchObject({ code: "model_error", retryable: true });
  });
});

describe("aiSdkModel's settings", () => {
  const v3 = aiSdkModel(new MockLanguageModelV3({ modelId: "m3" }));
  const v4 = aiSdkModel(new MockLanguageModelV4({ modelId: "m4" }));

  it("takes temperature, maxOutputTokens and toolChoice on both; reasoning effort on v4 only", () => {
    const common = { temperature: 0.3, maxOutputTokens: 100, toolChoice: "required" } as const;
    expect(v3.refuseSettings?.(common)).toBeUndefined();
    expect(v4.refuseSettings?.({ ...common, reasoning: { effort: "high" } })).toBeUndefined();
    expect(v3.refuseSettings?.({ reasoning: { effort: "high" } })).toBe(
      "the AI SDK model mock-provider:m3 implements specification v3, which has no reasoning.effort: set it in aiSdkModel's providerOptions instead",
    );
    expect(v4.refuseSettings?.({ reasoning: { effort: "max" } })).toContain("not max");
    expect(v4.refuseSettings?.({ parallelToolCalls: false })).toContain("parallelToolCalls");
    expect(v4.refuseSettings?.({ reasoning: { summary: "auto" } })).toContain("reasoning.summary");
  });

  it("sends them under the specification's names, with the provider options", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    });
    await aiSdkModel(model, { providerOptions: { anthropic: { effort: "low" } } }).respond(
      request({
        settings: { temperature: 0.3, reasoning: { effort: "high" }, toolChoice: { name: "add" } },
      }),
      new AbortController().signal,
    );
    expect(model.doGenerateCalls[0]).toMatchObject({
      temperature: 0.3,
      reasoning: "high",
      toolChoice: { type: "tool", toolName: "add" },
      providerOptions: { anthropic: { effort: "low" } },
    });
  });
});

describe("aiSdkModel's checks", () => {
  it("names an API key variable that is not set", () => {
    const model = aiSdkModel(new MockLanguageModelV4(), {
      apiKeyVariable: "ERRAND_TEST_UNSET_KEY",
    });
    expect(model.missingCredentials?.()).toBe("ERRAND_TEST_UNSET_KEY is not set");
    expect(aiSdkModel(new MockLanguageModelV4()).missingCredentials?.()).toBeUndefined();
  });

  it("refuses a model of another specification", () => {
    const v2 = { ...new MockLanguageModelV4(), specificationVersion: "v2" };
    expect(() => aiSdkModel(v2 as unknown as AiSdkLanguageModel)).toThrow(
      expect.objectContaining({ code: "invalid_spec" }),
    );
  });

  it("reads the flat usage of older providers", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "ok" }],
        finishReason: "stop" as never,
        usage: {
          inputTokens: 7,
          outputTokens: 3,
          cachedInputTokens: 2,
          reasoningTokens: 1,
        } as never,
        warnings: [],
      },
    });
    const response = await aiSdkModel(model).respond(request(), new AbortController().signal);
    expect(response).toMatchObject({
      text: "ok",
      finish: "stop",
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2, reasoningTokens: 1 },
    });
  });
});
