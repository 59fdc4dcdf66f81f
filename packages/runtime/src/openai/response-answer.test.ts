/**
 * How a Responses API answer is read: what is tolerated, what is refused and
 * named, and which output items are kept for the next request.
 */
import { describe, expect, it } from "vitest";
import { ModelError } from "../errors.js";
import { readResponse } from "./response-answer.js";

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }],
  ...extra,
});
const functionCall = (extra: Record<string, unknown> = {}) => ({
  type: "function_call",
  name: "add",
  arguments: '{"a":1,"b":2}',
  ...extra,
});
const response = (output: unknown, extra: Record<string, unknown> = {}) => ({
  id: "resp_1",
  object: "response",
  status: "completed",
  output,
  ...extra,
});

function refusalOf(answer: unknown): ModelError {
  try {
    readResponse(answer, 3);
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error("the answer should have been refused");
}

describe("readResponse", () => {
  it("reads text, calls, reasoning, usage with its details and the id, keeping the items in order", () => {
    const read = readResponse(
      response(
        [
          {
            type: "reasoning",
            id: "rs_1",
            summary: [{ type: "summary_text", text: "Add them." }],
            encrypted_content: "enc",
          },
          message("Adding.", { id: "msg_1", phase: "commentary" }),
          functionCall({ id: "fc_1", call_id: "call_a" }),
        ],
        {
          usage: {
            input_tokens: 100,
            input_tokens_details: { cached_tokens: 64 },
            output_tokens: 30,
            output_tokens_details: { reasoning_tokens: 20 },
          },
        },
      ),
      3,
    );
    expect(read).toEqual({
      text: "Adding.",
      calls: [{ callId: "call_a", name: "add", args: { a: 1, b: 2 } }],
      usage: { inputTokens: 100, outputTokens: 30, cachedInputTokens: 64, reasoningTokens: 20 },
      finish: "tool_calls",
      items: [
        { type: "reasoning", id: "rs_1", summary: ["Add them."], encryptedContent: "enc" },
        { type: "message", id: "msg_1", phase: "commentary" },
        { type: "function_call", id: "fc_1", callId: "call_a" },
      ],
      responseId: "resp_1",
    });
  });

  it("tolerates what compatible servers leave out: ids, call ids, arguments, usage, status", () => {
    const read = readResponse(
      { output: [functionCall({ arguments: undefined }), functionCall({ call_id: "" })] },
      3,
    );
    expect(read).toEqual({
      calls: [
        { callId: "call_3_1", name: "add", args: {} },
        { callId: "call_3_2", name: "add", args: { a: 1, b: 2 } },
      ],
      usage: { inputTokens: 0, outputTokens: 0 },
      finish: "tool_calls",
    });
  });

  it("joins the text of several messages, keeping each message's own text on its item", () => {
    const read = readResponse(
      response([message("First. ", { id: "m1" }), message("Second.", { id: "m2" })]),
      1,
    );
    expect(read.text).toBe("First. Second.");
    expect(read.items).toEqual([
      { type: "message", id: "m1", text: "First. " },
      { type: "message", id: "m2", text: "Second." },
    ]);
  });

  it("reads a refusal part and plain text content as text", () => {
    const refused = { type: "message", content: [{ type: "refusal", refusal: "I cannot." }] };
    expect(readResponse(response([refused]), 1).text).toBe("I cannot.");
    expect(readResponse(response([{ type: "message", content: "plain" }]), 1).text).toBe("plain");
  });

  it("finishes as length when the response stopped at max_output_tokens", () => {
    const cut = response([message("Half")], {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
    expect(readResponse(cut, 1).finish).toBe("length");
  });

  it.each<[string, unknown, string]>([
    ["a list", [], "it is a list, not a JSON object"],
    ["no output", { id: "resp_1" }, "it has no output list"],
    ["an item that is not an object", response(["x"]), "output item 1 is a string, not an object"],
    [
      "a built-in tool call",
      response([message("x"), { type: "web_search_call", id: "ws_1" }]),
      'output item 2 is of type "web_search_call": only messages, reasoning and function calls can be read',
    ],
    [
      "a function call without a name",
      response([functionCall({ name: "" })]),
      "output item 1 is a function call without a name",
    ],
    [
      "content that is not a list",
      response([{ type: "message", content: 4 }]),
      "output item 1.content is a number, not a list",
    ],
    [
      "a status still running",
      response([], { status: "queued" }),
      'its status is "queued", not completed',
    ],
  ])("refuses %s, naming it, without retrying", (_what, answer, problem) => {
    const error = refusalOf(answer);
    expect(error.message).toBe(`the model's answer is malformed: ${problem}`);
    expect(error.retryable).toBe(false);
  });

  it("fails a failed response with its reason, retryable for a server error only", () => {
    const failed = (code: string) =>
      refusalOf(response([], { status: "failed", error: { code, message: "it broke" } }));
    expect(failed("server_error")).toMatchObject({
      message: "the model's response failed: it broke",
      retryable: true,
    });
    expect(failed("invalid_prompt").retryable).toBe(false);
  });
});
