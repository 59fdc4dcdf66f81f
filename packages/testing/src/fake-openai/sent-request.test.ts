import { describe, expect, it } from "vitest";
import { readSentRequest } from "./sent-request.js";

const tool = { name: "add", strict: true, parameters: { type: "object" } };

describe("readSentRequest", () => {
  it("reads a chat request and a Responses request of the same conversation alike", () => {
    const chat = readSentRequest("/v1/chat/completions", {
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "2+2?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "4" },
      ],
      tools: [{ type: "function", function: tool }],
    });
    const responses = readSentRequest("/v1/responses", {
      model: "m",
      instructions: "Be brief.",
      input: [
        { role: "user", content: "2+2?" },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "function_call", id: "fc_1", call_id: "c1", name: "add", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "4" },
      ],
      tools: [{ type: "function", ...tool }],
    });
    expect(responses).toEqual(chat);
    expect(chat.tools).toEqual([tool]);
  });
});
