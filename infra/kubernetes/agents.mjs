// The agents the example deployment runs: the compose file mounts this module
// into its workers, and the Kubernetes base ships it as a ConfigMap. Replace it
// with yours (what it exports decides the workers' queue: the KEDA trigger in
// worker-scaledobject.yaml names that queue, so change both together).
// Both agents play scripts, so the deployment runs without a model.
import { defineAgent, scriptedModel } from "@errand/runtime";

/** Answers every run with a greeting. */
export const greeter = defineAgent({
  name: "greeter",
  instructions: "Greet the person named in your input.",
  model: scriptedModel(),
  script: [{ say: "Hello!" }],
});

/** Plays the script its input carries (`input.script`): to try the deployment under load. */
export const scripted = defineAgent({
  name: "scripted",
  instructions: "Follow your script.",
  model: scriptedModel(),
  scriptFromInput: true,
  maxSteps: 8,
});
