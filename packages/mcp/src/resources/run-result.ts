/**
 * The resource `errand://runs/<runId>/result` (docs/architecture/mcp.md#sizes):
 * a settled run's whole result — its output and text uncut — which answers
 * reference when they cut one short. A run not settled, or unknown, is a
 * JSON-RPC error (`-32002`, resource not found) with errand's message.
 */
import { isErrandError } from "@errand/core";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { RESULT_URI_TEMPLATE } from "../results/result-resource.js";
import type { ErrandMcpServices } from "../server/errand-services.js";

/** The JSON-RPC code of a resource that does not exist (MCP's own). */
const RESOURCE_NOT_FOUND = -32002;

/** Registers the run-result resource template on `server`. */
export function registerRunResultResource(server: McpServer, services: ErrandMcpServices): void {
  server.registerResource(
    "run-result",
    new ResourceTemplate(RESULT_URI_TEMPLATE, { list: undefined }),
    {
      title: "A run's whole result",
      description:
        "A settled run's result with its output and text uncut: { runId, agent, status, output?, text?, error? }.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const runId = decodeURIComponent(String(variables.runId));
      let result: Awaited<ReturnType<ErrandMcpServices["errand"]["result"]>>;
      try {
        result = await services.errand.result(runId);
      } catch (error) {
        if (isErrandError(error))
          throw new McpError(RESOURCE_NOT_FOUND, error.message, { code: error.code });
        services.reportUnexpected(error, "resources/read");
        throw new McpError(RESOURCE_NOT_FOUND, `the result of ${runId} could not be read`);
      }
      if (result === undefined) {
        throw new McpError(
          RESOURCE_NOT_FOUND,
          `run ${runId} has not settled yet: wait_runs waits for it`,
          {
            code: "pending",
          },
        );
      }
      const { agent, status, output, text, error } = result;
      const whole = {
        runId,
        agent,
        status,
        ...(output === undefined ? {} : { output }),
        ...(text === undefined ? {} : { text }),
        ...(error === undefined ? {} : { error }),
      };
      return {
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(whole) }],
      };
    },
  );
}
