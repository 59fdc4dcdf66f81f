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
});
