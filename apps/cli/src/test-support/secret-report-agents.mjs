/**
 * An agent for the CLI's redaction test, loaded by a spawned `errand worker
 * --agents`: its one tool answers with an API key (`sk-tool-777`) next to
 * 44 KB of data, so its result is cut and kept as a blob (plain ESM, as `fixture-agents.mjs`).
 */
import { defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { z } from "zod";

const fetchReport = defineTool({
  name: "fetch_report",
  description: "A large report, with the key it was fetched with.",
  parameters: z.object({}),
  handler: () => ({ apiKey: "sk-tool-777", blob: "r".repeat(44 * 1024) }),
});

/** Plays the script of its input with `fetch_report`. */
export const secretReport = defineAgent({
  name: "secret-report",
  instructions: "Fetch the report.",
  model: scriptedModel(),
  tools: [fetchReport],
  scriptFromInput: true,
  maxSteps: 3,
});
