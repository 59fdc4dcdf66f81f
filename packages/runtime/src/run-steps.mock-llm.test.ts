/**
 * Runs on an OpenAI-compatible server that is not OpenAI: the independent mock
 * `@dwmkerr/mock-llm`, reached through the real `openai` client over HTTP.
 * A tool call without `type` records the output; an answer without choices
 * fails the run at once with a `model_error` that says so.
 */
import { type MockLlm, startMockLlm } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./agent.js";
import type { Model } from "./model.js";
import { openaiModel } from "./openai/model.js";
import { STRUCTURED_OUTPUT_TOOL } from "./structured-output.js";
import { play } from "./test-support/play.js";
import { typesOf } from "./test-support/runs.js";

const ada = { name: "Ada", age: 36 };

let mock: MockLlm;
let model: Model;
beforeAll(async () => {
  mock = await startMockLlm();
  const answers = {
    "typeless-call": {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [
        {
          message: {
            role: "assistant",
            tool_calls: [
              {
                id: "call_1",
                function: { name: STRUCTURED_OUTPUT_TOOL, arguments: JSON.stringify(ada) },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    },
    "no-choices": { id: "chatcmpl-2", object: "chat.completion" },
  };
  await mock.configure(
    Object.entries(answers).map(([model, body]) => ({ path: "/v1/chat/completions", model, body })),
  );
  model = openaiModel({ apiKey: "test", baseURL: mock.baseURL, model: "unused-default" });
});
afterAll(() => mock?.close());

function agentOn(modelName: string) {
  return defineAgent({
    name: `mock-llm-${modelName}`,
    instructions: "Describe the person.",
    model: modelName,
    outputSchema: z.object({ name: z.string(), age: z.number().int() }),
    maxSteps: 3,
  });
}

describe("runSteps on @dwmkerr/mock-llm", () => {
  it("records the output of a structured_output call sent without a type", async () => {
    const run = await play(agentOn("typeless-call"), { model });
    expect(typesOf(run.events)).toEqual(["model-responded", "output-recorded", "finished"]);
    expect(run.result).toMatchObject({ status: "succeeded", output: ada });
  });

  it("fails the run with model_error, without retrying, on an answer without choices", async () => {
    const run = await play(agentOn("no-choices"), { model });
    expect(run.requests).toHaveLength(1);
    expect(run.result).toMatchObject({
      status: "failed",
      error: {
        code: "model_error",
        retryable: false,
        message: "the model's answer is malformed: it has no choices",
      },
    });
  });
});
