/**
 * An agents module for the CLI's tests whose agent names its model and asks
 * it for a reasoning summary: a setting the default model of a worker (Chat
 * Completions) cannot honour, so the worker refuses it at start.
 */
import { defineAgent } from "@errand/runtime";

/** Names its model and asks for a reasoning summary. */
export const summarizer = defineAgent({
  name: "summarizer",
  instructions: "Summarise your input.",
  model: "some-reasoning-model",
  modelSettings: { reasoning: { effort: "low", summary: "auto" } },
});
