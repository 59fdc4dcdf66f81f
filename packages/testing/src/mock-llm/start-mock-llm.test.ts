import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockLlm, startMockLlm } from "./start-mock-llm.js";

let mock: MockLlm;
let client: OpenAI;
beforeAll(async () => {
  mock = await startMockLlm();
  client = new OpenAI({ apiKey: "test", baseURL: mock.baseURL, maxRetries: 0 });
});
afterAll(() => mock?.close());

const say = (text: string) => ({
  id: `resp_${text}`,
  object: "response",
  status: "completed",
  output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
});

describe("startMockLlm", () => {
  it("answers each path and model with its rule's exact body, in sequence where rules carry one", async () => {
    await mock.configure([
      {
        path: "/v1/responses",
        model: "m",
        sequence: 0,
        status: 503,
        body: { error: { message: "busy" } },
      },
      { path: "/v1/responses", model: "m", sequence: 1, body: say("second") },
      { path: "/v1/chat/completions", model: "c", body: { choices: [] } },
    ]);
    const busy = await client.responses
      .create({ model: "m", input: "hi" })
      .catch((e: unknown) => e);
    expect(busy).toMatchObject({ status: 503 });
    const second = await client.responses.create({ model: "m", input: "hi" });
    expect(second.output_text).toBe("second");
    const chat = await client.chat.completions.create({
      model: "c",
      messages: [{ role: "user", content: "x" }],
    });
    expect(chat).toEqual({ choices: [] });
  });

  it("replaces its rules and sequence on configure, and 404s a request no rule answers", async () => {
    await mock.configure([{ path: "/v1/responses", model: "m", sequence: 0, body: say("again") }]);
    expect((await client.responses.create({ model: "m", input: "hi" })).output_text).toBe("again");
    const unknown = await client.responses
      .create({ model: "other", input: "hi" })
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404 });
  });
});
