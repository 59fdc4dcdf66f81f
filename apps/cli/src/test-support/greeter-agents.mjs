/**
 * A second agents module for the CLI's tests: another team's worker, with an
 * agent the fixture module does not have, on the same Redis and prefix.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";

/** Greets by name: answers with text at once. */
export const greeter = defineAgent({
  name: "greeter",
  instructions: "Greet the person you are given.",
  model: scriptedModel(),
  script: [{ say: "Hello!" }],
  maxSteps: 2,
});
