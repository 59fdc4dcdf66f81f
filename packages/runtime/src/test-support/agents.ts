/**
 * Agents the runtime's tests share: a scripted helper agent and an `add`
 * tool. Test-only.
 */
import type { Script } from "@errand/core";
import { z } from "zod";
import { type AgentOptions, defineAgent } from "../agent.js";
import type { Agent } from "../model.js";
import { scriptedModel } from "../scripted-model.js";
import { defineTool } from "../tool.js";

/** An agent named `helper` on the scripted model playing `script`, with up to 5 steps. */
export function scriptedAgent(script: Script, options: Partial<AgentOptions> = {}): Agent {
  return defineAgent({
    name: "helper",
    instructions: "Help.",
    model: scriptedModel(),
    script,
    maxSteps: 5,
    ...options,
  });
}

/** A tool that adds two numbers: `{ sum }`. */
export const addTool = defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ({ sum: a + b }),
});
