/**
 * `serveMcpOverStdio`: errand's MCP server on the process's stdin and stdout
 * (docs/architecture/mcp.md#stdio), as a client that spawns `errand mcp`
 * speaks to it. stdout then carries JSON-RPC alone: every log line goes to
 * stderr. It serves until the client closes stdin.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createErrandMcpServer, type ServerIdentity } from "../server/create-server.js";
import type { ErrandMcpServices } from "../server/errand-services.js";

/** A server on stdio. */
export interface McpStdioServer {
  /** Resolves once the client closed stdin (or `close` was called). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves `services` on stdin and stdout. */
export async function serveMcpOverStdio(
  services: ErrandMcpServices,
  identity: ServerIdentity,
  streams: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream } = {
    stdin: process.stdin,
    stdout: process.stdout,
  },
): Promise<McpStdioServer> {
  const server = createErrandMcpServer(services, identity);
  const transport = new StdioServerTransport(
    streams.stdin as typeof process.stdin,
    streams.stdout as typeof process.stdout,
  );
  const closed = new Promise<void>((resolve) => {
    streams.stdin.once("end", resolve);
    streams.stdin.once("close", resolve);
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close();
    },
  };
}
