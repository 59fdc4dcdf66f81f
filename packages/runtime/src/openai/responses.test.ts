/**
 * `openaiModel({ api: "responses" })` against the fake server: what a request
 * carries (instructions, input items, strict tools, settings under their
 * Responses names, reasoning sent back in order), what an answer becomes,
 * and how failures are classified.
 */
import { type FakeOpenAI, type ResponsesRequest, startFakeOpenAI } from "@errand/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ModelError } from "../errors.js";
import type { Agent, ModelRequest, TranscriptMessage } from "../model.js";
import type { ModelSettings } from "../model-settings.js";
import { openaiModel } from "./model.js";
import type { ResponsesHistory } from "./responses.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ADD = {
  name: "add",
  description: "Adds.",
  parameters: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
    additionalProperties: false,
  },
  strict: true,
};

const opening: TranscriptMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "What is 2+2?" },
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    runId: "R1",
    step: 1,
    messages: opening,
    tools: [ADD],
    settings: {},
    agent: { name: "adder" } as Agent,
    input: "What is 2+2?",
    ...overrides,
  };
}

async function responsesModel(script: object[], history?: ResponsesHistory) {
  fake = await startFakeOpenAI({ scripts: { m: script as never } });
  return openaiModel({
    apiKey: "test",
    baseURL: fake.baseURL,
    model: "m",
    api: "responses",
    ...(history === undefined ? {} : { history }),
  });
}

/** The body of the fake server's request number `index`. */
function sent(index = 0): ResponsesRequest {
  return fake?.requests[index]?.body as unknown as ResponsesRequest;
}

const signal = () => new AbortController().signal;

/** A well-formed answer, for a server that answers without looking. */
const CANNED = {
  id: "resp_2",
  object: "response",
  status: "completed",
  output: [{ type: "message", id: "msg_2", content: [{ type: "output_text", text: "It is 4." }] }],
};

/** A first step that reasoned, then called add: as its `model-responded` logged it. */
const reasonedStep: TranscriptMessage[] = [
  {
    role: "assistant",
    calls: [{ callId: "call_a", name: "add", args: { a: 2, b: 2 } }],
    items: [
      { type: "reasoning", id: "rs_1", summary: ["Add."], encryptedContent: "enc_1" },
      { type: "function_call", id: "fc_1", callId: "call_a" },
    ],
    responseId: "resp_1",
  },
  { role: "tool", callId: "call_a", name: "add", content: '{"sum":4}' },
];

describe("openaiModel on the Responses API", () => {
  it("sends instructions, the input, strict function tools and nothing stored", async () => {
    const model = await responsesModel([{ say: "4" }]);
    const response = await model.respond(request(), signal());
    expect(response.text).toBe("4");
    expect(sent()).toEqual({
      model: "m",
      instructions: "Be brief.",
      input: [{ role: "user", content: "What is 2+2?" }],
      store: false,
      tools: [{ type: "function", ...ADD }],
    });
  });

  it("sends every setting under its Responses name, asking for encrypted reasoning when reasoning is set", async () => {
    const model = await responsesModel([{ say: "4" }]);
    const settings: ModelSettings = {
      reasoning: { effort: "high", summary: "detailed" },
      temperature: 0.3,
      maxOutputTokens: 512,
      parallelToolCalls: false,
      toolChoice: { name: "add" },
    };
    await model.respond(request({ settings }), signal());
    expect(sent()).toMatchObject({
      reasoning: { effort: "high", summary: "detailed" },
      include: ["reasoning.encrypted_content"],
      temperature: 0.3,
      max_output_tokens: 512,
      parallel_tool_calls: false,
      tool_choice: { type: "function", name: "add" },
    });
  });

  it("reads calls, usage with cached and reasoning tokens, the output items and the response id", async () => {
    const model = await responsesModel([
      { say: "Adding.", call: [{ tool: "add", args: { a: 2, b: 2 } }] },
    ]);
    const response = await model.respond(
      request({ settings: { reasoning: { effort: "low" } } }),
      signal(),
    );
    const answer = fake?.requests[0]?.answer?.body as {
      id: string;
      output: { id: string; call_id?: string; encrypted_content?: string }[];
      usage: { input_tokens: number; output_tokens: number };
    };
    const [reasoning, message, call] = answer.output;
    expect(response).toEqual({
      text: "Adding.",
      calls: [{ callId: call?.call_id, name: "add", args: { a: 2, b: 2 } }],
      usage: {
        inputTokens: answer.usage.input_tokens,
        outputTokens: answer.usage.output_tokens,
        cachedInputTokens: 0,
        reasoningTokens: expect.any(Number),
      },
      finish: "tool_calls",
      items: [
        {
          type: "reasoning",
          id: reasoning?.id,
          summary: [],
          encryptedContent: reasoning?.encrypted_content,
        },
        { type: "message", id: message?.id },
        { type: "function_call", id: call?.id, callId: call?.call_id },
      ],
      responseId: answer.id,
    });
    expect(response.usage.reasoningTokens).toBeGreaterThan(0);
  });

  it("sends an earlier step back as its logged items, in order, then the tool results", async () => {
    // The fake server would refuse encrypted content it never issued: answer without checking.
    fake = await startFakeOpenAI({ intercept: () => ({ status: 200, body: CANNED }) });
    const model = openaiModel({ apiKey: "t", baseURL: fake.baseURL, model: "m", api: "responses" });
    const messages = [...opening, ...reasonedStep];
    const response = await model.respond(
      request({ step: 2, settings: { reasoning: { effort: "low" } }, messages }),
      signal(),
    );
    expect(response.text).toBe("It is 4.");
    expect(sent().input).toEqual([
      { role: "user", content: "What is 2+2?" },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "Add." }],
        encrypted_content: "enc_1",
      },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_a",
        name: "add",
        arguments: '{"a":2,"b":2}',
      },
      { type: "function_call_output", call_id: "call_a", output: '{"sum":4}' },
    ]);
  });

  it("leaves out reasoning the server could not resolve: no encrypted content and nothing stored", async () => {
    const model = await responsesModel([{ say: "x" }, { say: "It is 4." }]);
    const bare = structuredClone(reasonedStep);
    const logged = bare[0] as Extract<TranscriptMessage, { role: "assistant" }>;
    logged.items![0] = { type: "reasoning", id: "rs_1", summary: [] };
    await model.respond(request({ step: 2, messages: [...opening, ...bare] }), signal());
    expect((sent().input as { type?: string }[]).map((item) => item.type)).toEqual([
      undefined,
      "function_call",
      "function_call_output",
    ]);
  });

  it("sends a step logged without items (another model's) as its text, then its calls", async () => {
    const model = await responsesModel([{ say: "x" }, { say: "done" }]);
    const messages: TranscriptMessage[] = [
      ...opening,
      { role: "assistant", content: "Adding.", calls: [{ callId: "c1", name: "add", args: {} }] },
      { role: "tool", callId: "c1", name: "add", content: "4" },
    ];
    await model.respond(request({ step: 2, messages }), signal());
    expect(sent().input).toEqual([
      { role: "user", content: "What is 2+2?" },
      { role: "assistant", content: "Adding." },
      { type: "function_call", call_id: "c1", name: "add", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "4" },
    ]);
  });

  it("with history previous-response, stores responses and chains the next request to the last one", async () => {
    const model = await responsesModel(
      [{ call: [{ tool: "add", args: { a: 2, b: 2 } }] }, { say: "It is 4." }],
      "previous-response",
    );
    const first = await model.respond(request(), signal());
    expect(sent(0)).toMatchObject({ store: true });
    expect(sent(0)).not.toHaveProperty("previous_response_id");
    const call = first.calls[0]!;
    const messages: TranscriptMessage[] = [
      ...opening,
      { role: "assistant", calls: first.calls, items: first.items!, responseId: first.responseId! },
      { role: "tool", callId: call.callId, name: "add", content: '{"sum":4}' },
    ];
    const second = await model.respond(request({ step: 2, messages }), signal());
    expect(second.text).toBe("It is 4.");
    expect(sent(1)).toMatchObject({
      instructions: "Be brief.",
      previous_response_id: first.responseId,
      store: true,
      input: [{ type: "function_call_output", call_id: call.callId, output: '{"sum":4}' }],
    });
  });

  it("classifies failures: a 429 with its retry-after, a 5xx retryable, a malformed answer not", async () => {
    const model = await responsesModel([
      { fail: "slow down", status: 429, retryAfterSeconds: 2 },
      { fail: "down", status: 502 },
    ]);
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(await failure(model.respond(request(), signal()))).toMatchObject({
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
    });
    expect(await failure(model.respond(request(), signal()))).toMatchObject({
      retryable: true,
      status: 502,
    });
    await fake?.close();
    fake = await startFakeOpenAI({
      intercept: () => ({ status: 200, body: { object: "response", output: null } }),
    });
    const broken = openaiModel({
      apiKey: "t",
      baseURL: fake.baseURL,
      model: "m",
      api: "responses",
    });
    const error = await failure(broken.respond(request(), signal()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      message: "the model's answer is malformed: it has no output list",
      retryable: false,
    });
    await fake.close();
    fake = await startFakeOpenAI({ intercept: () => ({ status: 200, text: "<html>oops" }) });
    const html = openaiModel({ apiKey: "t", baseURL: fake.baseURL, model: "m", api: "responses" });
    expect(await failure(html.respond(request(), signal()))).toMatchObject({
      message: "the model's answer is malformed: it is not JSON",
      retryable: false,
    });
  });

  it("aborts the in-flight request when the signal fires", async () => {
    const model = await responsesModel([{ say: "late", sleepMs: 60_000 }]);
    const controller = new AbortController();
    const pending = model.respond(request(), controller.signal);
    await expect.poll(() => fake?.requests.length).toBe(1);
    controller.abort("cancelled by test");
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(error).not.toBeInstanceOf(ModelError);
  });
});
