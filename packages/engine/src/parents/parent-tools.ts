/**
 * The tools of a parent agent: give them to an agent (`tools:
 * parentTools()`) and run it on an errand worker; the worker lends them the
 * engine. Limits given here hold for the agents that get these tools, over
 * the worker's `parentLimits`.
 */
import type { Tool } from "@errand/runtime";
import { createCollectAgentsTool } from "./collect-agents.js";
import type { ParentLimits } from "./limits.js";
import { createSpawnAgentsTool } from "./spawn-agents.js";

/**
 * `[spawn_agents, collect_agents]`, with `limits` (when given) over the
 * worker's. Throws `invalid_spec` for a limit that is not a whole number.
 *
 * ```ts
 * const lead = defineAgent({
 *   name: "lead",
 *   instructions: "Split the question, spawn a researcher per part, collect them, answer.",
 *   model: openaiModel({ model: "gpt-4.1-mini" }),
 *   tools: parentTools({ maxChildrenPerParent: 50 }),
 * });
 * ```
 */
export function parentTools(limits: Partial<ParentLimits> = {}): Tool[] {
  return [createSpawnAgentsTool(limits), createCollectAgentsTool()];
}
