import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ModelError } from "../errors.js";
import type { Agent, ModelRequest } from "../model.js";
import { PLACEHOLDER_API_KEY, retryAfterMs } from "./client.js";
import { openaiModel } from "./model.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await fake?.close();
  fake = undefined;
});

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    runId: "R1",
    step: 1,
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "What is 2+2?" },
    ],
    tools: [
      {
        name: "add",
        description: "Adds.",
        parameters: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
          additionalProperties: false,
        },
        strict: true,
      },
    ],
    settings: {},
    agent: { name: "adder" } as Agent,
    input: "What is 2+2?",
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("the request should have failed"),
    (error: unknown) => error,
  );
}

describe("openaiModel against an OpenAI-compatible server", () => {
  it("sends the transcript and tools (strict) and maps calls, text and usage back", async () => {
    fake = await startFakeOpenAI({
      scripts: { m: [{ say: "Adding.", call: [{ tool: "add", args: { a: 2, b: 2 } }] }] },
    });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const response = await model.respond(request(), new AbortController().signal);

    expect(response.text).toBe("Adding.");
    expect(response.calls).toHaveLength(1);
    expect(response.calls[0]).toMatchObject({ name: "add", args: { a: 2, b: 2 } });
    expect(response.calls[0]?.callId).toMatch(/.+/);
    expect(response.finish).toBe("tool_calls");
    expect(response.usage.inputTokens).toBeGreaterThan(0);
    expect(response.usage.outputTokens).toBeGreaterThan(0);

    const body = fake.requests[0]?.body;
    expect(body?.model).toBe("m");
    expect(body?.messages?.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body?.tools?.[0]?.function).toMatchObject({ name: "add", strict: true });
  });

  it("sends earlier steps as assistant tool calls and tool messages", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "x" }, { say: "It is 4." }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const messages: ModelRequest["messages"] = [
      ...request().messages,
      { role: "assistant", calls: [{ callId: "c1", name: "add", args: { a: 2, b: 2 } }] },
      { role: "tool", callId: "c1", name: "add", content: '{"sum":4}' },
    ];
    const response = await model.respond(
      request({ step: 2, messages }),
      new AbortController().signal,
    );
    expect(response.text).toBe("It is 4.");
    const sent = fake.requests[0]?.body?.messages;
    expect(sent?.[2]).toMatchObject({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "add", arguments: '{"a":2,"b":2}' } },
      ],
    });
    expect(sent?.[3]).toMatchObject({ role: "tool", tool_call_id: "c1", content: '{"sum":4}' });
  });

  it("sends every setting under its Chat Completions name, and reads cached and reasoning tokens", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "4" }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const response = await model.respond(
      request({
        settings: {
          reasoning: { effort: "minimal" },
          temperature: 0,
          maxOutputTokens: 64,
          parallelToolCalls: true,
          toolChoice: "required",
        },
      }),
      new AbortController().signal,
    );
    expect(fake.requests[0]?.body).toMatchObject({
      reasoning_effort: "minimal",
      temperature: 0,
      max_completion_tokens: 64,
      parallel_tool_calls: true,
      tool_choice: "required",
    });
    const answer = fake.requests[0]?.answer?.body as { usage: Record<string, number> };
    const { usage } = answer;
    expect(response.usage).toEqual({
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      cachedInputTokens: 0,
      reasoningTokens: expect.any(Number),
    });
    expect(response.usage.reasoningTokens).toBeGreaterThan(0);
    expect(response).not.toHaveProperty("items");
  });

  it("sends a tool choice by name as a function", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "4" }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    await model.respond(
      request({ settings: { toolChoice: { name: "add" } } }),
      new AbortController().signal,
    );
    expect(fake.requests[0]?.body?.tool_choice).toEqual({
      type: "function",
      function: { name: "add" },
    });
  });

  it("asks for the model the agent names, when it names one", async () => {
    fake = await startFakeOpenAI({ scripts: { named: [{ say: "named" }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "default" });
    const response = await model.respond(request({ model: "named" }), new AbortController().signal);
    expect(response.text).toBe("named");
  });

  it("keeps arguments that are not JSON as text", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ call: [{ tool: "add", args: "{oops" }] }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const response = await model.respond(request(), new AbortController().signal);
    expect(response.calls[0]?.args).toBe("{oops");
  });

  it("classifies a 5xx as a retryable ModelError without retrying inside the client", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ fail: "overloaded", status: 503 }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const error = await failure(model.respond(request(), new AbortController().signal));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "model_error", retryable: true, status: 503 });
    expect((error as ModelError).message).toContain("overloaded");
    expect(fake.requests).toHaveLength(1);
  });

  it("reads retry-after from a 429", async () => {
    fake = await startFakeOpenAI({
      scripts: { m: [{ fail: "slow down", status: 429, retryAfterSeconds: 7 }] },
    });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const error = await failure(model.respond(request(), new AbortController().signal));
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000 });
  });

  it("classifies a 4xx such as an unknown model as not retryable", async () => {
    fake = await startFakeOpenAI({ scripts: {} });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "nope" });
    const error = await failure(model.respond(request(), new AbortController().signal));
    expect(error).toMatchObject({ code: "model_error", retryable: false, status: 404 });
  });

  it("classifies an unreachable server as retryable", async () => {
    fake = await startFakeOpenAI({ scripts: {} });
    const baseURL = fake.baseURL;
    await fake.close();
    const model = openaiModel({ apiKey: "test", baseURL, model: "m" });
    const error = await failure(model.respond(request(), new AbortController().signal));
    expect(error).toMatchObject({ code: "model_error", retryable: true });
  });

  it("aborts the in-flight request when the signal fires", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "late", sleepMs: 60_000 }] } });
    const model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "m" });
    const controller = new AbortController();
    const pending = model.respond(request(), controller.signal);
    const received = fake.requests;
    await expect.poll(() => received.length).toBe(1);
    controller.abort("cancelled by test");
    const error = await failure(pending);
    expect(error).not.toBeInstanceOf(ModelError);
    expect(controller.signal.aborted).toBe(true);
  });
});

describe("openaiModel on a server that needs no key", () => {
  it("sends a placeholder key to the server given by baseURL", async () => {
    vi.stubEnv("OPENAI_API_KEY", undefined);
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "local" }] } });
    const model = openaiModel({ baseURL: fake.baseURL, model: "m" });
    const response = await model.respond(request(), new AbortController().signal);
    expect(response.text).toBe("local");
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it("asks the server of OPENAI_BASE_URL alone, a blank OPENAI_API_KEY counting as unset", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "from the environment" }] } });
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    vi.stubEnv("OPENAI_API_KEY", " ");
    const response = await openaiModel({ model: "m" }).respond(
      request(),
      new AbortController().signal,
    );
    expect(response.text).toBe("from the environment");
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it("sends OPENAI_API_KEY when it is set", async () => {
    fake = await startFakeOpenAI({ scripts: { m: [{ say: "keyed" }] } });
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    vi.stubEnv("OPENAI_API_KEY", "sk-test");
    await openaiModel({ model: "m" }).respond(request(), new AbortController().signal);
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("cannot be made without a key or a server", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "  ");
    expect(() => openaiModel({ model: "m" })).toThrow(
      expect.objectContaining({
        code: "invalid_spec",
        message: expect.stringContaining("OPENAI_API_KEY or OPENAI_BASE_URL"),
      }),
    );
  });
});

describe("retryAfterMs", () => {
  it("reads retry-after-ms, retry-after seconds and an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
