/**
 * The tools of a parent agent: give them to an agent (`tools:
 * parentTools()`) and run it on an errand worker; the worker lends them the
 * engine. Limits given here hold for the agents that get these tools, over
 * the worker's `parentLimits`; the agents given here are listed, with their
 * descriptions, in `spawn_agents`' description.
 */
import type { Tool } from "@errand/runtime";
import { createCollectAgentsTool } from "./collect-agents.js";
import { createSpawnAgentsTool, type ParentToolsOptions } from "./spawn-agents.js";

/**
 * `[spawn_agents, collect_agents]`, with the limits of `options` (when
 * given) over the worker's, `spawn_agents` listing its `agents`. Throws `invalid_spec` for a limit that is not a whole number.
 *
 * ```ts
 * const lead = defineAgent({
 *   name: "lead",
 *   instructions: "Split the question, spawn a researcher per part, collect them, answer.",
 *   model: openaiModel({ model: "gpt-4.1-mini" }),
 *   tools: parentTools({ agents: [researcher], maxChildrenPerParent: 50 }),
 * });
 * ```
 */
export function parentTools(options: ParentToolsOptions = {}): Tool[] {
  return [createSpawnAgentsTool(options), createCollectAgentsTool()];
}
