/**
 * Model settings are checked when an agent is defined and refused, by name,
 * by a model that cannot honour them: never dropped silently.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentOptions, assertModelTakesSettings, defineAgent } from "./agent.js";
import type { Model } from "./model.js";
import { type ModelSettings, settingNames } from "./model-settings.js";
import { openaiModel } from "./openai/model.js";
import { scriptedModel } from "./scripted-model.js";
import { addTool } from "./test-support/agents.js";
import { play } from "./test-support/play.js";

const chat = openaiModel({ apiKey: "test", baseURL: "http://127.0.0.1:9/v1", model: "m" });
const responses = openaiModel({
  apiKey: "test",
  baseURL: "http://127.0.0.1:9/v1",
  model: "m",
  api: "responses",
});

function agent(modelSettings: unknown, options: Partial<AgentOptions> = {}) {
  return defineAgent({
    name: "tuned",
    instructions: "Add.",
    model: chat,
    tools: [addTool],
    modelSettings: modelSettings as ModelSettings,
    ...options,
  });
}

function thrownBy(define: () => unknown): unknown {
  try {
    define();
  } catch (error) {
    return error;
  }
  throw new Error("expected the definition to be refused");
}

const every: ModelSettings = {
  reasoning: { effort: "high" },
  temperature: 0.2,
  maxOutputTokens: 256,
  parallelToolCalls: false,
  toolChoice: { name: "add" },
};

describe("modelSettings on defineAgent", () => {
  it("keeps the settings given, and {} when none are", () => {
    expect(agent(every).modelSettings).toEqual(every);
    expect(agent(undefined).modelSettings).toEqual({});
    expect(settingNames(every)).toEqual([
      "reasoning.effort",
      "temperature",
      "maxOutputTokens",
      "parallelToolCalls",
      "toolChoice",
    ]);
  });

  it.each<[string, unknown, string]>([
    ["an unknown setting", { topK: 3 }, "modelSettings: "],
    ["a temperature out of range", { temperature: 3 }, "modelSettings: temperature: "],
    [
      "an unknown effort",
      { reasoning: { effort: "extreme" } },
      "modelSettings: reasoning.effort: ",
    ],
    [
      "a token limit that is not whole",
      { maxOutputTokens: 1.5 },
      "modelSettings: maxOutputTokens: ",
    ],
    ["a tool the agent lacks", { toolChoice: { name: "search" } }, "toolChoice names search"],
  ])("refuses %s as invalid_spec", (_what, settings, problem) => {
    const error = thrownBy(() => agent(settings));
    expect(error).toMatchObject({
      code: "invalid_spec",
      message: expect.stringContaining(problem),
    });
  });

  it("refuses tool settings without tools, and toolChoice none where a run must record its output", () => {
    expect(thrownBy(() => agent({ parallelToolCalls: true }, { tools: [] }))).toMatchObject({
      code: "invalid_spec",
      message: expect.stringContaining("need tools"),
    });
    const schema = { outputSchema: z.object({ sum: z.number() }) };
    expect(thrownBy(() => agent({ toolChoice: "none" }, schema))).toMatchObject({
      message: expect.stringContaining("recording its structured output"),
    });
    expect(agent({ toolChoice: { name: "structured_output" } }, schema).modelSettings).toEqual({
      toolChoice: { name: "structured_output" },
    });
  });
});

describe("a model that cannot honour a setting refuses it", () => {
  it("the scripted model refuses every setting, naming them", () => {
    const error = thrownBy(() => agent({ temperature: 0 }, { model: scriptedModel() }));
    expect(error).toMatchObject({
      code: "settings_not_supported",
      message:
        "agent tuned: model scripted takes no model settings, so it cannot honour temperature",
    });
    expect(agent({}, { model: scriptedModel() }).modelSettings).toEqual({});
  });

  it("Chat Completions refuses reasoning summaries; the Responses API takes them", () => {
    const summary = { reasoning: { effort: "low", summary: "auto" } };
    expect(thrownBy(() => agent(summary))).toMatchObject({
      code: "settings_not_supported",
      message: expect.stringContaining("no reasoning summaries (reasoning.summary)"),
    });
    expect(agent(summary, { model: responses }).modelSettings).toEqual(summary);
  });

  it("the Responses API refuses a maxOutputTokens under 16; Chat Completions takes it", () => {
    expect(thrownBy(() => agent({ maxOutputTokens: 8 }, { model: responses }))).toMatchObject({
      code: "settings_not_supported",
      message: expect.stringContaining("maxOutputTokens of 16 or more, not 8"),
    });
    expect(agent({ maxOutputTokens: 8 }).modelSettings).toEqual({ maxOutputTokens: 8 });
  });

  it("is asked again when the host resolves the model an agent names", () => {
    const named = agent(every, { model: "gpt-named" });
    expect(() => assertModelTakesSettings(named, chat)).not.toThrow();
    expect(thrownBy(() => assertModelTakesSettings(named, scriptedModel()))).toMatchObject({
      code: "settings_not_supported",
    });
  });

  it("fails a run that reaches runSteps on such a model before any request", async () => {
    const named = agent({ temperature: 0.5 }, { model: "gpt-named" });
    const silent: Model = { name: "silent", supportsTools: true, respond: () => Promise.reject() };
    const run = await play(named, { model: silent });
    expect(run.requests).toHaveLength(0);
    expect(run.events).toMatchObject([
      {
        type: "failed",
        data: {
          code: "settings_not_supported",
          message: "model silent takes no model settings, so it cannot honour temperature",
          retryable: false,
        },
      },
    ]);
  });
});

describe("openaiModel options", () => {
  it("refuses history on the chat API", () => {
    expect(
      thrownBy(() => openaiModel({ apiKey: "k", model: "m", history: "resend" })),
    ).toMatchObject({ code: "invalid_spec", message: expect.stringContaining('api: "responses"') });
  });
});
