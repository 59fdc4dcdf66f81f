/**
 * An agents module for the CLI's tests: agents whose models declare what
 * they honour (`capabilities`), as a Gemini and a recent Claude model do,
 * so `fire` refuses a schema or model settings they cannot take.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";

/** A scripted model wearing `capabilities`, taking the settings they allow. */
function wearing(name, capabilities) {
  return { ...scriptedModel({ name }), capabilities, refuseSettings: () => undefined };
}

/** Judges on a Gemini-like model: no `$ref`/`$defs`, no `const` within `anyOf`. */
export const geminiJudge = defineAgent({
  name: "gemini-judge",
  instructions: "Judge.",
  model: wearing("google:gemini-2.5-flash", {
    provider: "google",
    forcesToolCalls: true,
    schemaRefusals: [
      { keyword: "$ref" },
      { keyword: "$defs" },
      { keyword: "const", within: "anyOf", fix: "use enum" },
    ],
  }),
  script: [{ say: "fine" }],
});

/** Thinks on a Claude-like model: no temperature with thinking. */
export const claudeThinker = defineAgent({
  name: "claude-thinker",
  instructions: "Think.",
  model: wearing("anthropic:claude-sonnet-4-5", {
    provider: "anthropic",
    forcesToolCalls: true,
    settingsConflicts: [
      { settings: ["temperature", "reasoning.effort"], reason: "thinking takes no temperature" },
    ],
  }),
  modelSettings: { reasoning: { effort: "low" } },
  script: [{ say: "thought" }],
});
