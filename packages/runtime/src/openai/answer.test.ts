/**
 * How `openaiModel` reads the answers OpenAI-compatible servers really send:
 * through the real `openai` client over HTTP, against the independent mock
 * server `@dwmkerr/mock-llm` answering each model with an exact JSON body.
 */
import { type MockLlm, startMockLlm } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "../errors.js";
import type { Agent, Model, ModelRequest } from "../model.js";
import { openaiModel } from "./model.js";

const answer = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  choices: [{ index: 0, message: { role: "assistant", ...message }, ...extra }],
});
const call = (fn: unknown, extra: Record<string, unknown> = {}) => ({ ...extra, function: fn });
const add = (args: unknown) => ({ name: "add", arguments: args });

/** Answers the fixture below cannot read, with the problem each must be named by. */
const MALFORMED: [string, unknown, string][] = [
  ["not-an-object", [], "it is a list, not a JSON object"],
  ["no-choices", { id: "chatcmpl-1", object: "chat.completion" }, "it has no choices"],
  ["empty-choices", { choices: [] }, "it has no choices"],
  ["choice-not-object", { choices: ["hello"] }, "choices[0] is a string, not an object"],
  ["no-message", { choices: [{ index: 0, finish_reason: "stop" }] }, "choices[0] has no message"],
  ["content-number", answer({ content: 4 }), "choices[0].message.content is a number, not text"],
  [
    "tool-calls-object",
    answer({ tool_calls: call(add("{}")) }),
    "choices[0].message.tool_calls is an object, not a list",
  ],
  ["call-not-object", answer({ tool_calls: [null] }), "tool call 1 is null, not an object"],
  [
    "custom-call",
    answer({ tool_calls: [{ id: "c1", type: "custom", custom: { name: "add", input: "2+2" } }] }),
    'tool call 1 is of type "custom": only function calls can be run',
  ],
  [
    "no-function",
    answer({ tool_calls: [{ id: "c1", type: "function" }] }),
    "tool call 1 has no function",
  ],
  [
    "no-function-name",
    answer({ tool_calls: [call(add("{}")), call({ arguments: "{}" })] }),
    "tool call 2 has no function name",
  ],
];

const ANSWERS: Record<string, unknown> = {
  // What @dwmkerr/mock-llm's own README shows, and what some servers send: no `type`, no usage.
  "no-type": answer(
    { content: null, tool_calls: [call(add('{"a":2,"b":2}'), { id: "c1" })] },
    { finish_reason: "tool_calls" },
  ),
  "left-out": answer({
    tool_calls: [
      call({ name: "add" }),
      call(add({ a: 1, b: 2 }), { id: "dup" }),
      call(add(""), { id: "dup", type: "function" }),
    ],
  }),
  refusal: { ...answer({ content: null, refusal: "I cannot add." }), usage: { prompt_tokens: 5 } },
  "odd-usage": {
    ...answer({ content: "4" }, { finish_reason: "length" }),
    usage: { prompt_tokens: 7, completion_tokens: "three" },
  },
  ...Object.fromEntries(MALFORMED.map(([model, body]) => [model, body])),
};

let mock: MockLlm;
let model: Model;
beforeAll(async () => {
  mock = await startMockLlm();
  await mock.configure(
    Object.entries(ANSWERS).map(([model, body]) => ({ path: "/v1/chat/completions", model, body })),
  );
  model = openaiModel({ apiKey: "test", baseURL: mock.baseURL, model: "unused-default" });
});
afterAll(() => mock?.close());

function ask(modelName: string, step = 1) {
  const request: ModelRequest = {
    runId: "R1",
    step,
    model: modelName,
    messages: [{ role: "user", content: "What is 2+2?" }],
    tools: [],
    settings: {},
    agent: { name: "adder" } as Agent,
    input: "What is 2+2?",
  };
  return model.respond(request, new AbortController().signal);
}

describe("openaiModel reading what compatible servers send", () => {
  it("takes a tool call without a type as a function call", async () => {
    const response = await ask("no-type");
    expect(response).toEqual({
      calls: [{ callId: "c1", name: "add", args: { a: 2, b: 2 } }],
      usage: { inputTokens: 0, outputTokens: 0 },
      finish: "tool_calls",
    });
  });

  it("fills in missing or repeated call ids, missing arguments and the finish reason", async () => {
    const response = await ask("left-out", 3);
    expect(response.calls).toEqual([
      { callId: "call_3_1", name: "add", args: {} },
      { callId: "dup", name: "add", args: { a: 1, b: 2 } },
      { callId: "call_3_3", name: "add", args: {} },
    ]);
    expect(response.finish).toBe("tool_calls");
    expect(response.text).toBeUndefined();
  });

  it("answers a refusal as text, finishing with stop when the server names no reason", async () => {
    const response = await ask("refusal");
    expect(response).toEqual({
      text: "I cannot add.",
      calls: [],
      usage: { inputTokens: 5, outputTokens: 0 },
      finish: "stop",
    });
  });

  it("counts a token count that is not a whole number as 0 and keeps the server's finish reason", async () => {
    const response = await ask("odd-usage");
    expect(response).toMatchObject({
      text: "4",
      usage: { inputTokens: 7, outputTokens: 0 },
      finish: "length",
    });
  });

  it.for(MALFORMED)(
    "fails the %s answer with a model_error naming it",
    async ([name, , problem]) => {
      const error = await ask(name).then(
        () => expect.unreachable("the answer should have been refused"),
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({
        code: "model_error",
        retryable: false,
        message: `the model's answer is malformed: ${problem}`,
      });
    },
  );
});
