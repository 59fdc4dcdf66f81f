/**
 * `@errand/mcp` — errand as an MCP server (docs/guide/mcp.md): tools that
 * list agents, start runs, wait for and collect them, read one run, cancel
 * runs and answer the runs that wait for a person, every answer shaped by
 * errand's result vocabulary (docs/architecture/mcp.md), and the resource
 * `errand://runs/<runId>/result` that returns a whole result. `errand mcp`
 * serves it over stdio or Streamable HTTP; build your own host with:
 *
 * ```ts
 * import { createErrand, LOOPBACK_GRANT, openConnection } from "@errand/engine";
 * import { grantedServices, serveMcpOverStdio } from "@errand/mcp";
 *
 * const errand = createErrand({ connection: process.env.REDIS_URL! });
 * const registry = openConnection(process.env.REDIS_URL!, { logger, name: "mcp registry" });
 * const services = grantedServices({ errand, registry, logger, reportUnexpected: console.error }, LOOPBACK_GRANT);
 * await serveMcpOverStdio(services, { name: "errand", version: "1.0.0" });
 * ```
 *
 * @packageDocumentation
 */
export {
  type AgentListing,
  type AgentVersionListing,
  readAgentCatalog,
} from "./agents/agent-catalog.js";
export { isLoopbackHost } from "./http/allowed-hosts.js";
export { accessByKeys, type KeyAccessOptions } from "./http/key-access.js";
export {
  MCP_PATH,
  type McpAccess,
  type McpHttpOptions,
  type McpHttpServer,
  type McpRefusal,
  serveMcpOverHttp,
} from "./http/serve-http.js";
export {
  ANSWER_BYTE_BUDGET,
  EVENT_PAGE_LIMITS,
  INLINE_CHARS,
  MAX_BATCH_RUNS,
  WAIT_PAGE_LIMITS,
  WAIT_SECONDS,
  WAITING_PAGE_LIMITS,
} from "./limits.js";
export { type ResultRef, resultUri } from "./results/result-resource.js";
export { createErrandMcpServer, type ServerIdentity } from "./server/create-server.js";
export type { ErrandMcpServices, McpErrand } from "./server/errand-services.js";
export { grantedServices, type SharedServices } from "./server/granted-services.js";
export { type McpStdioServer, serveMcpOverStdio } from "./stdio/serve-stdio.js";
export { TOOL_NAMES } from "./tools/tool-names.js";
