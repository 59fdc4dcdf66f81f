/**
 * The capabilities `aiSdkModel` gives Gemini and Claude models, read by the
 * runtime's own checks: the schema a Gemini model refuses, and the settings
 * Claude refuses with and without extended thinking.
 */
import type { Model } from "@errand/runtime";
import { schemaCapabilityRefusal, settingsCapabilityRefusal } from "@errand/runtime/ops";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkModel } from "./ai-sdk-model.js";

const tags = {
  type: "object",
  properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
  required: ["tags"],
  additionalProperties: false,
};

describe("a Gemini model's capabilities", () => {
  const gemini = aiSdkModel(
    new MockLanguageModelV4({ provider: "google.generative-ai", modelId: "gemini-x" }),
  );

  it("refuse a keyword of Gemini's schema subset, naming it and the provider, and take a strict schema", () => {
    expect(schemaCapabilityRefusal(gemini.capabilities!, tags)).toMatchObject({
      keyword: "uniqueItems",
      provider: "google",
      path: ["properties", "tags"],
    });
    const strict = { ...tags, properties: { tags: { type: "array", items: { type: "string" } } } };
    expect(schemaCapabilityRefusal(gemini.capabilities!, strict)).toBeUndefined();
  });
});

const settingsRefusal = (model: Model, settings: Parameters<typeof settingsCapabilityRefusal>[1]) =>
  settingsCapabilityRefusal(model.capabilities!, settings);

describe("a Claude model's capabilities", () => {
  const claude = (providerOptions?: Record<string, Record<string, never>>) =>
    aiSdkModel(new MockLanguageModelV4({ provider: "anthropic.messages", modelId: "claude-x" }), {
      ...(providerOptions === undefined ? {} : { providerOptions }),
    });
  const thinking = { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } as never } };

  it("refuse temperature with topP, and forcing a tool or a temperature with thinking", () => {
    expect(settingsRefusal(claude(), { temperature: 0.5 })).toBeUndefined();
    expect(settingsRefusal(claude(), { temperature: 0.5, topP: 0.9 })).toContain(
      "temperature with topP",
    );
    expect(
      settingsRefusal(claude(), { temperature: 0.5, reasoning: { effort: "high" } }),
    ).toContain("extended thinking");
    expect(settingsRefusal(claude(thinking), { temperature: 0.5 })).toContain("extended thinking");
    expect(settingsRefusal(claude(thinking), { toolChoice: "required" })).toContain(
      "force a tool call",
    );
    expect(claude(thinking).capabilities?.forcesToolCalls).toBe(false);
    expect(claude().capabilities?.forcesToolCalls).toBe(true);
  });
});
