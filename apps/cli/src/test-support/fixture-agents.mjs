/**
 * Agents for the CLI's tests, loaded by a spawned `errand worker --agents`:
 * plain ESM so that the built CLI imports it without a TypeScript loader.
 */
import { parentTools } from "@errand/engine";
import { askTool, defineAgent, scriptedModel } from "@errand/runtime";

/** Plays the script of its input; the output schema comes with each run (`fire --schema`). */
export const scriptedCity = defineAgent({
  name: "scripted-city",
  description: "Records a city and its population.",
  instructions: "Record the city you are given and its population.",
  model: scriptedModel(),
  scriptFromInput: true,
  maxSteps: 4,
});

/** Plays the script of its input with the parent tools (spawns children, collects them) and `ask`. */
export const scriptedParent = defineAgent({
  name: "scripted-parent",
  instructions: "Spawn the children you are given and collect them.",
  model: scriptedModel(),
  tools: [...parentTools(), askTool()],
  scriptFromInput: true,
  maxSteps: 4,
});
