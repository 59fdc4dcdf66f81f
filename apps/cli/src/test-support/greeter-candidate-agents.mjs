/**
 * The candidate of the CLI's evaluation tests: `greeter` (of
 * greeter-agents.mjs) with new instructions, which greets at more length.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";

/** Greets by name, warmly: answers with text at once. */
export const greeter = defineAgent({
  name: "greeter",
  instructions: "Greet the person you are given, warmly.",
  model: scriptedModel(),
  script: [{ say: "Hello there, welcome!" }],
  maxSteps: 2,
});
