import { isErrandError, type Script } from "@errand/core";
import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from "./server.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function fake(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(options);
  servers.push(server);
  return server;
}

function clientOf(server: FakeOpenAI, maxRetries?: number): OpenAI {
  return new OpenAI({
    apiKey: "test",
    baseURL: server.baseURL,
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
}

const weatherTool: ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};

function userSays(text: string): ChatCompletionMessageParam[] {
  return [
    { role: "system", content: "You are a test agent." },
    { role: "user", content: text },
  ];
}

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

describe("startFakeOpenAI with the real openai client", () => {
  it("answers a say turn with text, finish_reason stop and usage", async () => {
    const server = await fake({ scripts: { "scripted-1": [{ say: "hello world!" }] } });
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const completion = await clientOf(server).chat.completions.create({
      model: "scripted-1",
      messages: userSays("hi"),
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("scripted-1");
    expect(completion.id).toMatch(/^chatcmpl-/);
    const choice = completion.choices[0]!;
    expect(choice.message.role).toBe("assistant");
    expect(choice.message.content).toBe("hello world!");
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.finish_reason).toBe("stop");

    const usage = completion.usage!;
    expect(usage.completion_tokens).toBe(Math.ceil("hello world!".length / 4));
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it("answers a call turn with tool calls whose arguments parse back to the script's args", async () => {
    const server = await fake({
      scripts: {
        m: [
          {
            call: [
              { tool: "get_weather", args: { city: "Paris" } },
              { tool: "get_weather", args: { city: "Oslo" } },
            ],
          },
          { say: "Paris is sunny, Oslo is not." },
        ],
      },
    });
    const client = clientOf(server);
    const messages = userSays("weather in Paris and Oslo?");
    const first = await client.chat.completions.create({
      model: "m",
      messages,
      tools: [weatherTool],
    });
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(message.content).toBeNull();
    const calls = message.tool_calls ?? [];
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    const functionCalls = calls.map((call) => {
      if (call.type !== "function") throw new Error(`unexpected tool call type ${call.type}`);
      return call.function;
    });
    expect(functionCalls.map((fn) => fn.name)).toEqual(["get_weather", "get_weather"]);
    expect(functionCalls.map((fn) => JSON.parse(fn.arguments))).toEqual([
      { city: "Paris" },
      { city: "Oslo" },
    ]);

    const second = await client.chat.completions.create({
      model: "m",
      tools: [weatherTool],
      messages: [
        ...messages,
        message,
        ...calls.map((call, i) => ({
          role: "tool" as const,
          tool_call_id: call.id,
          content: i === 0 ? "sunny" : "rain",
        })),
      ],
    });
    expect(second.choices[0]!.message.content).toBe("Paris is sunny, Oslo is not.");
    expect(second.choices[0]!.finish_reason).toBe("stop");
  });

  it("answers a call turn that also says something with both", async () => {
    const server = await fake({
      scripts: {
        m: [{ say: "checking", call: [{ tool: "get_weather", args: { city: "Rome" } }] }],
      },
    });
    const completion = await clientOf(server).chat.completions.create({
      model: "m",
      messages: userSays("Rome?"),
      tools: [weatherTool],
    });
    expect(completion.choices[0]!.message.content).toBe("checking");
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("fails with 500, then answers the same request made again (client retries off)", async () => {
    const server = await fake({ scripts: { m: [{ fail: "model overloaded" }, { say: "hi" }] } });
    const client = clientOf(server, 0);
    const request = { model: "m", messages: userSays("hello") };

    const error = await rejection(client.chat.completions.create(request));
    expect(error.status).toBe(500);
    expect(error.message).toContain("model overloaded");
    expect(error.type).toBe("server_error");
    expect(server.requests).toHaveLength(1);

    const retried = await client.chat.completions.create(request);
    expect(retried.choices[0]!.message.content).toBe("hi");
  });

  it("lets the client's own retry get past a fail turn", async () => {
    const server = await fake({ scripts: { m: [{ fail: "flaky" }, { say: "recovered" }] } });
    const completion = await clientOf(server, 2).chat.completions.create({
      model: "m",
      messages: userSays("hello"),
    });
    expect(completion.choices[0]!.message.content).toBe("recovered");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toEqual(server.requests[0]!.body);
  });

  it("answers a 429 fail turn with a rate-limit error and a retry-after header", async () => {
    const server = await fake({
      scripts: { m: [{ fail: "slow down", status: 429, retryAfterSeconds: 7 }, { say: "ok" }] },
    });
    const error = await rejection(
      clientOf(server, 0).chat.completions.create({ model: "m", messages: userSays("go") }),
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.headers?.get("retry-after")).toBe("7");
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.message).toContain("slow down");
  });

  it("answers with empty text and finish_reason stop once the script runs out", async () => {
    const server = await fake({ scripts: { m: [{ say: "only turn" }] } });
    const client = clientOf(server);
    const messages = userSays("talk");
    const first = await client.chat.completions.create({ model: "m", messages });
    expect(first.choices[0]!.message.content).toBe("only turn");

    const after = await client.chat.completions.create({
      model: "m",
      messages: [...messages, first.choices[0]!.message, { role: "user", content: "more?" }],
    });
    expect(after.choices[0]!.message.content).toBe("");
    expect(after.choices[0]!.message.tool_calls).toBeUndefined();
    expect(after.choices[0]!.finish_reason).toBe("stop");
  });

  it("gives two concurrent conversations their own turns", async () => {
    const script: Script = [
      { call: [{ tool: "get_weather", args: { city: "Lima" } }] },
      { say: "second turn" },
    ];
    const server = await fake({ scripts: { m: script } });
    const client = clientOf(server);
    const conversations = [userSays("conversation A"), userSays("conversation B")];

    const firsts = await Promise.all(
      conversations.map((messages) =>
        client.chat.completions.create({ model: "m", messages, tools: [weatherTool] }),
      ),
    );
    for (const first of firsts) expect(first.choices[0]!.finish_reason).toBe("tool_calls");

    const seconds = await Promise.all(
      conversations.map((messages, i) => {
        const message = firsts[i]!.choices[0]!.message;
        const callId = message.tool_calls![0]!.id;
        return client.chat.completions.create({
          model: "m",
          tools: [weatherTool],
          messages: [...messages, message, { role: "tool", tool_call_id: callId, content: "warm" }],
        });
      }),
    );
    expect(seconds.map((second) => second.choices[0]!.message.content)).toEqual([
      "second turn",
      "second turn",
    ]);
  });

  it("records every request body in order", async () => {
    const server = await fake({ scripts: { a: [{ say: "1" }], b: [{ say: "2" }] } });
    const client = clientOf(server);
    await client.chat.completions.create({ model: "a", messages: userSays("first") });
    await client.chat.completions.create({
      model: "b",
      messages: userSays("second"),
      tools: [weatherTool],
    });

    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ["POST", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
    ]);
    expect(server.requests.map((request) => request.body?.model)).toEqual(["a", "b"]);
    expect(server.requests[0]!.body?.messages).toEqual(userSays("first"));
    expect(server.requests[0]!.body?.tools).toBeUndefined();
    expect(server.requests[1]!.body?.tools).toEqual([weatherTool]);
    expect(JSON.parse(server.requests[1]!.rawBody)).toEqual(server.requests[1]!.body);
  });

  it("picks the script with scriptFor, falling back to scripts by model", async () => {
    const server = await fake({
      scripts: { fallback: [{ say: "from scripts" }] },
      scriptFor: (request) => {
        const user = request.messages.find((message) => message.role === "user");
        const text = typeof user?.content === "string" ? user.content : "";
        return text.startsWith("{") ? (JSON.parse(text) as { script: Script }).script : undefined;
      },
    });
    const client = clientOf(server);
    const custom = await client.chat.completions.create({
      model: "fallback",
      messages: userSays(JSON.stringify({ script: [{ say: "from the user message" }] })),
    });
    expect(custom.choices[0]!.message.content).toBe("from the user message");
    const byModel = await client.chat.completions.create({
      model: "fallback",
      messages: userSays("plain"),
    });
    expect(byModel.choices[0]!.message.content).toBe("from scripts");
  });

  it("answers an unknown model with 404 model_not_found and lists the scripted models", async () => {
    const server = await fake({ scripts: { known: [], "also-known": [] } });
    const client = clientOf(server, 0);
    const error = await rejection(
      client.chat.completions.create({ model: "unknown", messages: userSays("hi") }),
    );
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe("model_not_found");
    expect(error.message).toContain("unknown");

    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models.sort()).toEqual(["also-known", "known"]);
  });

  it("refuses malformed requests with 400 and an OpenAI-style error body", async () => {
    const server = await fake({ scripts: { m: [{ say: "never" }] } });
    const client = clientOf(server, 0);
    const empty = await rejection(client.chat.completions.create({ model: "m", messages: [] }));
    expect(empty).toBeInstanceOf(OpenAI.BadRequestError);
    expect(empty.param).toBe("messages");

    const badTool = await rejection(
      client.chat.completions.create({
        model: "m",
        messages: userSays("hi"),
        tools: [{ type: "web_search" } as unknown as ChatCompletionTool],
      }),
    );
    expect(badTool.status).toBe(400);
    expect(badTool.param).toBe("tools[0]");

    const raw = await fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m" }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      error: {
        message: expect.stringContaining("messages"),
        type: "invalid_request_error",
        param: "messages",
        code: "invalid_request",
      },
    });
  });

  it("refuses a malformed script up front with invalid_spec", async () => {
    const malformed = { m: [{ say: "ok" }, { sya: "typo" }] } as unknown as Record<string, Script>;
    const error = await startFakeOpenAI({ scripts: malformed }).catch((caught: unknown) => caught);
    expect(isErrandError(error, "invalid_spec")).toBe(true);
    expect((error as Error).message).toContain('model "m"');
  });

  it("stops quietly when the client gives up during a sleepMs delay", async () => {
    const server = await fake({ scripts: { m: [{ say: "too late", sleepMs: 60_000 }] } });
    const client = clientOf(server, 0);
    const abort = new AbortController();
    const pending = client.chat.completions.create(
      { model: "m", messages: userSays("slow") },
      { signal: abort.signal },
    );
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    abort.abort();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);

    const other = await fetch(`${server.baseURL}/models`);
    expect(other.status).toBe(200);
  });
});
