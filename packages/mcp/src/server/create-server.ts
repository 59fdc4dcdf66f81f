/**
 * `createErrandMcpServer`: one MCP server (one per session: the SDK binds a
 * server to one transport) with errand's tools and the run-result resource,
 * acting through `services` — the client, narrowed or not, that decides
 * what its caller may see and do.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { z } from "zod";
import { registerRunResultResource } from "../resources/run-result.js";
import { answerWaitingTool } from "../tools/answer-waiting.js";
import { cancelRunsTool } from "../tools/cancel-runs.js";
import { getRunTool } from "../tools/get-run.js";
import { listAgentsTool } from "../tools/list-agents.js";
import { listWaitingTool } from "../tools/list-waiting.js";
import { startRunsTool } from "../tools/start-runs.js";
import { waitRunsTool } from "../tools/wait-runs.js";
import type { ErrandMcpServices } from "./errand-services.js";
import { type ErrandTool, registerErrandTools } from "./register-tools.js";

/** What the server tells a client on `initialize`: how the tools fit together. */
const INSTRUCTIONS =
  "errand runs AI agents in the background. list_agents shows what you can run; start_runs starts runs and answers at once; wait_runs waits (up to 60 s a call) and collects their results — follow each answer's nextAction (and retryAction, when present) until it has none. get_run shows one run, cancel_runs stops runs, list_waiting and answer_waiting answer runs that wait for a person.";

/** The server's name and version, as `initialize` answers them. */
export interface ServerIdentity {
  name: string;
  version: string;
}

/** A new MCP server with errand's tools and resource over `services`. */
export function createErrandMcpServer(
  services: ErrandMcpServices,
  identity: ServerIdentity,
): McpServer {
  const server = new McpServer(identity, { instructions: INSTRUCTIONS });
  const tools: ErrandTool<z.ZodObject>[] = [
    listAgentsTool(services),
    startRunsTool(services),
    waitRunsTool(services),
    getRunTool(services),
    cancelRunsTool(services),
    listWaitingTool(services),
    answerWaitingTool(services),
  ] as never[];
  registerErrandTools(server, tools, services.reportUnexpected);
  registerRunResultResource(server, services);
  return server;
}
