import type { Script } from "@errand/core";
import OpenAI from "openai";
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import { afterEach, describe, expect, it } from "vitest";
import { REASONING_SUMMARY } from "./responses-bodies.js";
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from "./server.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function clientOf(options: FakeOpenAIOptions): Promise<[OpenAI, FakeOpenAI]> {
  const server = await startFakeOpenAI(options);
  servers.push(server);
  return [new OpenAI({ apiKey: "test", baseURL: server.baseURL, maxRetries: 0 }), server];
}

const weather: FunctionTool = {
  type: "function",
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
  strict: false,
};

const askWeather = (over: Partial<ResponseCreateParamsNonStreaming> = {}) => ({
  model: "m",
  instructions: "You are a test agent.",
  input: "Weather in Oslo?",
  tools: [weather],
  ...over,
});

const reasoning = {
  reasoning: { effort: "high" as const, summary: "auto" as const },
  include: ["reasoning.encrypted_content" as const],
  store: false,
};

const callThenSay: Script = [
  { call: [{ tool: "get_weather", args: { city: "Oslo" } }] },
  { say: "Cold in Oslo." },
];

/** The items a client sends back after running the calls of `output`: the output, then each call's result. */
function withResults(output: unknown[], result = "cold"): ResponseInputItem[] {
  const calls = output.filter(
    (item): item is { type: "function_call"; call_id: string } =>
      (item as { type: string }).type === "function_call",
  );
  return [
    ...(output as ResponseInputItem[]),
    ...calls.map((call) => ({
      type: "function_call_output" as const,
      call_id: call.call_id,
      output: result,
    })),
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

describe("startFakeOpenAI speaking the Responses API to the real openai client", () => {
  it("answers a say turn with a message, usage and a response id", async () => {
    const [client] = await clientOf({ scripts: { m: [{ say: "hello!" }] } });
    const response = await client.responses.create({ model: "m", input: "hi" });
    expect(response).toMatchObject({ object: "response", status: "completed", model: "m" });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe("hello!");
    expect(response.output).toMatchObject([
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "hello!" }] },
    ]);
    expect(response.usage).toMatchObject({
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(response.usage!.input_tokens).toBeGreaterThan(0);
  });

  it("answers a call turn with function calls, then the next turn once their outputs come back", async () => {
    const [client, server] = await clientOf({ scripts: { m: callThenSay } });
    const first = await client.responses.create(askWeather());
    expect(first.output).toMatchObject([
      { type: "function_call", name: "get_weather", arguments: '{"city":"Oslo"}' },
    ]);
    const input: ResponseInputItem[] = [
      { role: "user", content: "Weather in Oslo?" },
      ...withResults(first.output),
    ];
    const second = await client.responses.create(askWeather({ input }));
    expect(second.output_text).toBe("Cold in Oslo.");
    expect(second.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(server.requests.map((request) => request.path)).toEqual([
      "/v1/responses",
      "/v1/responses",
    ]);
    const { output_text: _added, ...sent } = second; // the client adds output_text
    expect(server.requests[1]!.answer).toEqual({ status: 200, body: sent });
  });

  it("gives a request that asks for reasoning a reasoning item first, with a summary and encrypted content", async () => {
    const [client] = await clientOf({ scripts: { m: callThenSay } });
    const first = await client.responses.create(askWeather(reasoning));
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    expect(first.output[0]).toMatchObject({
      id: expect.stringMatching(/^rs_/),
      summary: [{ type: "summary_text", text: REASONING_SUMMARY }],
      encrypted_content: expect.stringMatching(/^enc_/),
    });
    expect(first.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);

    const input = [
      { role: "user" as const, content: "Weather in Oslo?" },
      ...withResults(first.output),
    ];
    const second = await client.responses.create(askWeather({ ...reasoning, input }));
    expect(second.output_text).toBe("Cold in Oslo.");
  });

  it("refuses reasoning sent back as the real API does: unknown encrypted content, or no content when nothing was stored", async () => {
    const [client] = await clientOf({ scripts: { m: callThenSay } });
    const first = await client.responses.create(askWeather(reasoning));
    const [item, ...rest] = first.output;
    const resend = (changed: object) =>
      client.responses.create(
        askWeather({ ...reasoning, input: withResults([{ ...item, ...changed }, ...rest]) }),
      );

    const forged = await rejection(resend({ encrypted_content: "enc_forged" }));
    expect(forged).toMatchObject({ status: 400, code: "invalid_encrypted_content" });
    const bare = await rejection(resend({ encrypted_content: null }));
    expect(bare.status).toBe(404);
    expect(bare.message).toContain("Items are not persisted when `store` is set to false");
  });

  it("chains a stored response by previous_response_id, and refuses to chain one it did not store", async () => {
    const [client, server] = await clientOf({ scripts: { m: callThenSay } });
    const first = await client.responses.create(askWeather({ store: true }));
    const outputs = withResults(first.output).filter(
      (item) => item.type === "function_call_output",
    );
    const second = await client.responses.create(
      askWeather({ input: outputs, previous_response_id: first.id, store: true }),
    );
    expect(second.output_text).toBe("Cold in Oslo.");

    const unstored = await client.responses.create(askWeather({ store: false }));
    const error = await rejection(
      client.responses.create(askWeather({ input: outputs, previous_response_id: unstored.id })),
    );
    expect(error).toMatchObject({ status: 400, code: "previous_response_not_found" });
    expect(server.requests.at(-1)!.answer?.status).toBe(400);
  });

  it("plays fail turns with their status and retry-after, the retry getting the next turn", async () => {
    const [client] = await clientOf({
      scripts: { m: [{ fail: "slow down", status: 429, retryAfterSeconds: 3 }, { say: "ok" }] },
    });
    const error = await rejection(client.responses.create({ model: "m", input: "go" }));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get("retry-after")).toBe("3");
    const retried = await client.responses.create({ model: "m", input: "go" });
    expect(retried.output_text).toBe("ok");
  });

  it("hands scriptFor the conversation in chat form", async () => {
    const seen: unknown[] = [];
    const [client] = await clientOf({
      scriptFor: (request) => {
        seen.push(request.messages);
        return [{ say: "picked" }];
      },
    });
    await client.responses.create({ model: "any", instructions: "Be brief.", input: "hi" });
    expect(seen).toEqual([
      [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    ]);
  });

  it("sends what intercept answers instead of the script's turn, and records it", async () => {
    const [client, server] = await clientOf({
      scripts: { m: [{ say: "never" }] },
      intercept: (request) =>
        request.path === "/v1/responses" ? { status: 200, body: { object: "odd" } } : undefined,
    });
    const answer = await client.responses.create({ model: "m", input: "hi" });
    expect(answer).toEqual({ object: "odd" });
    expect(server.requests[0]!.answer).toEqual({ status: 200, body: { object: "odd" } });
  });

  it("refuses a request without input, or with a tool that is not a function, with a 400", async () => {
    const [, server] = await clientOf({ scripts: { m: [] } });
    const post = (body: unknown) =>
      fetch(`${server.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const noInput = await post({ model: "m" });
    expect(noInput.status).toBe(400);
    expect(await noInput.json()).toMatchObject({ error: { param: "input" } });
    const webSearch = await post({ model: "m", input: "hi", tools: [{ type: "web_search" }] });
    expect(await webSearch.json()).toMatchObject({ error: { param: "tools[0]" } });
  });
});
