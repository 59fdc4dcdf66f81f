import { defineAgent, scriptedModel } from "@errand/runtime";
import { describe, expect, it } from "vitest";
import { resolveAgentModels } from "./agent-models.js";

/** An agent that names its model and asks it for a temperature. */
const tuned = defineAgent({
  name: "tuned",
  instructions: "Answer.",
  model: "some-model",
  modelSettings: { temperature: 0.2 },
});

describe("resolveAgentModels", () => {
  it("refuses an agent whose resolved model cannot honour its model settings", () => {
    expect(() => resolveAgentModels([tuned], () => scriptedModel())).toThrow(
      expect.objectContaining({
        code: "settings_not_supported",
        message:
          "agent tuned: model scripted takes no model settings, so it cannot honour temperature",
      }),
    );
  });

  it("refuses, before the worker takes a run, an agent whose model says its key is not set", () => {
    const keyless = {
      ...scriptedModel(),
      missingCredentials: () => "ANTHROPIC_API_KEY is not set",
    };
    const agent = defineAgent({ name: "claude", instructions: "Answer.", model: keyless });
    expect(() => resolveAgentModels([agent])).toThrow(
      expect.objectContaining({
        code: "invalid_spec",
        message: "agent claude: model scripted cannot send requests: ANTHROPIC_API_KEY is not set",
      }),
    );
    const ready = { ...keyless, missingCredentials: () => undefined };
    expect(resolveAgentModels([{ ...agent, model: ready }]).get("claude")?.model).toBe(ready);
  });
});
