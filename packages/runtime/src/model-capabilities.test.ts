/**
 * Capabilities as data: which keyword of a schema a provider refuses (only
 * where it is a keyword, with its allowed value and the keyword it must sit
 * within), and which settings it refuses alone or together; and the same
 * rules applied to a model by `settingsRefusal` and `schemaRefusal`.
 */
import { describe, expect, it } from "vitest";
import { type Model, schemaRefusal, settingsRefusal } from "./model.js";
import {
  ModelCapabilities,
  schemaCapabilityRefusal,
  settingsCapabilityRefusal,
} from "./model-capabilities.js";
import { scriptedModel } from "./scripted-model.js";

const capabilities: ModelCapabilities = {
  provider: "google",
  forcesToolCalls: false,
  schemaRefusals: [
    { keyword: "additionalProperties", allowedValue: false },
    { keyword: "const", within: "anyOf", fix: "use enum" },
    { keyword: "$ref" },
  ],
  refusedSettings: [{ setting: "toolChoice=required", reason: "it cannot force a tool call" }],
  settingsConflicts: [{ settings: ["temperature", "reasoning.effort"], reason: "thinking" }],
};

const closed = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe("schemaCapabilityRefusal", () => {
  it("passes a schema that uses none of the refused keywords, a property named after one included", () => {
    const schema = closed({ const: { type: "string" }, $ref: { type: "string", const: "x" } });
    expect(schemaCapabilityRefusal(capabilities, schema)).toBeUndefined();
  });

  it("refuses a keyword with another value than the allowed one, naming where", () => {
    const schema = closed({
      tags: { type: "object", properties: {}, additionalProperties: { type: "string" } },
    });
    expect(schemaCapabilityRefusal(capabilities, schema)).toEqual({
      keyword: "additionalProperties",
      path: ["properties", "tags"],
      provider: "google",
      message:
        "google cannot carry the JSON Schema keyword additionalProperties (at /properties/tags) in a structured output",
    });
  });

  it("refuses a keyword only within the keyword it is tied to", () => {
    const inAnyOf = closed({
      pick: { anyOf: [{ type: "string" }, { type: "string", const: "b" }] },
    });
    expect(schemaCapabilityRefusal(capabilities, inAnyOf)).toMatchObject({
      keyword: "const",
      path: ["properties", "pick", "anyOf", 1],
      message: expect.stringContaining(
        "const within anyOf (at /properties/pick/anyOf/1) in a structured output; use enum",
      ),
    });
    const inArray = closed({ list: { type: "array", items: { $ref: "#/$defs/x" } } });
    expect(schemaCapabilityRefusal(capabilities, inArray)).toMatchObject({
      keyword: "$ref",
      path: ["properties", "list", "items"],
    });
  });

  it("reads back from the registry's JSON, dropping fields it does not know", () => {
    const stored = JSON.parse(JSON.stringify({ ...capabilities, laterField: 1 }));
    expect(ModelCapabilities.parse(stored)).toEqual(capabilities);
  });
});

describe("settingsCapabilityRefusal", () => {
  it("refuses a setting alone, a tool choice by its value", () => {
    expect(settingsCapabilityRefusal(capabilities, { toolChoice: "required" })).toBe(
      "google refuses toolChoice=required: it cannot force a tool call",
    );
    expect(settingsCapabilityRefusal(capabilities, { toolChoice: "auto" })).toBeUndefined();
  });

  it("refuses settings together, not apart", () => {
    expect(settingsCapabilityRefusal(capabilities, { temperature: 1 })).toBeUndefined();
    expect(
      settingsCapabilityRefusal(capabilities, { temperature: 1, reasoning: { effort: "low" } }),
    ).toBe("google refuses temperature with reasoning.effort: thinking");
  });
});

describe("a model's capabilities", () => {
  const model: Model = { ...scriptedModel(), capabilities, refuseSettings: () => undefined };

  it("hold its settings wherever they are checked", () => {
    expect(settingsRefusal(model, { temperature: 1 })).toBeUndefined();
    expect(settingsRefusal(model, { temperature: 1, reasoning: { effort: "low" } })).toContain(
      "google refuses temperature with reasoning.effort",
    );
  });

  it("hold its schemas, as a model without tool calls holds every schema", () => {
    expect(schemaRefusal(model, closed({ a: { type: "string" } }))).toBeUndefined();
    expect(schemaRefusal(model, closed({ a: { $ref: "#" } }))).toMatchObject({
      details: { keyword: "$ref", provider: "google", path: ["properties", "a"] },
    });
    const toolless: Model = { ...scriptedModel(), supportsTools: false };
    expect(schemaRefusal(toolless, closed({ a: { type: "string" } }))?.message).toContain(
      "cannot call tools",
    );
  });
});
