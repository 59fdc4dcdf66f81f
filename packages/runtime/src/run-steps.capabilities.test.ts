/**
 * A worker holds a run to its model's capabilities too, whatever `fire`
 * checked against the registry (a record of another worker version could
 * differ): an agent's own schema holding a keyword its model refuses is
 * refused when the agent is defined; a run whose schema or settings (the
 * run's over the agent's) the model refuses fails before any request, with
 * `schema_not_supported` or `settings_not_supported`; settings it honours
 * reach the model, the run's over the agent's.
 */
import { isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { defineAgent } from "./agent.js";
import type { Model } from "./model.js";
import type { ModelCapabilities } from "./model-capabilities.js";
import { scriptedModel } from "./scripted-model.js";
import { play } from "./test-support/play.js";

const capabilities: ModelCapabilities = {
  provider: "anthropic",
  forcesToolCalls: true,
  schemaRefusals: [{ keyword: "$ref" }],
  settingsConflicts: [{ settings: ["temperature", "reasoning.effort"], reason: "thinking" }],
};

const model: Model = { ...scriptedModel(), capabilities, refuseSettings: () => undefined };

const Linked = {
  type: "object",
  properties: { next: { $ref: "#/$defs/item" } },
  required: ["next"],
  additionalProperties: false,
  $defs: {
    item: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    },
  },
};

const thinker = defineAgent({
  name: "thinker",
  instructions: "Think.",
  model,
  modelSettings: { reasoning: { effort: "low" } },
  script: [{ say: "thought" }],
});

describe("a model's capabilities, held by the worker", () => {
  it("refuse an agent whose own schema holds a keyword the model refuses", () => {
    try {
      defineAgent({ name: "linked", instructions: "Link.", model, outputSchema: Linked });
      expect.unreachable("the agent was defined");
    } catch (error) {
      expect(isErrandError(error, "schema_not_supported")).toBe(true);
      expect(error).toMatchObject({
        details: { agent: "linked", keyword: "$ref", provider: "anthropic" },
      });
    }
  });

  it("fail a run whose schema the model refuses, before any request", async () => {
    const run = await play(thinker, { outputSchema: Linked });
    expect(run.requests).toHaveLength(0);
    expect(run.events).toMatchObject([
      { type: "failed", data: { code: "schema_not_supported", retryable: false } },
    ]);
  });

  it("fail a run whose settings conflict with the agent's, before any request", async () => {
    const run = await play(thinker, { modelSettings: { temperature: 0.5 } });
    expect(run.requests).toHaveLength(0);
    expect(run.events).toMatchObject([
      {
        type: "failed",
        data: {
          code: "settings_not_supported",
          message: expect.stringContaining("anthropic refuses temperature with reasoning.effort"),
        },
      },
    ]);
  });

  it("ask the model with the run's settings over the agent's", async () => {
    const run = await play(thinker, {
      modelSettings: { maxOutputTokens: 500, reasoning: { summary: "auto" } },
    });
    expect(run.result?.status).toBe("succeeded");
    expect(run.requests[0]?.settings).toEqual({
      maxOutputTokens: 500,
      reasoning: { effort: "low", summary: "auto" },
    });
  });
});
