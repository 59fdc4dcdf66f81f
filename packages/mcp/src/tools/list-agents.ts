/**
 * `list_agents` (docs/architecture/mcp.md#tools): the agents a caller may
 * fire, each with its description, input and output schemas, versions,
 * live workers and runs waiting. One page: agents are few.
 */
import { z } from "zod";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool } from "../server/register-tools.js";
import { TOOL_NAMES } from "./tool-names.js";

/** The `list_agents` tool over `services`. */
export function listAgentsTool(services: ErrandMcpServices): ErrandTool<z.ZodObject> {
  return {
    name: TOOL_NAMES.listAgents,
    title: "List agents",
    description:
      "Lists the agents you can start runs of: { items: [{ name, description?, inputSchema?, outputSchema?, versions: [{ version, live, runsWaiting }], liveWorkers, runsWaiting }], count, hasMore }. An input must match the agent's inputSchema; an agent with an outputSchema records output of that shape. A run of an agent with liveWorkers 0 waits until a worker starts. Start runs with start_runs.",
    args: z.object({}),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async run() {
      const items = await services.agents();
      return { items, count: items.length, hasMore: false };
    },
  };
}
