/**
 * `serveMcpOverHttp`: errand's MCP server on Streamable HTTP
 * (docs/architecture/mcp.md#http), at `/mcp`. Each session has its own
 * server and transport (the SDK binds one to the other) and is bound to the
 * caller that opened it: `access` decides, from the request's
 * `Authorization`, whether it is served and through which services (a key's
 * tenant and scopes narrow them); a request to a session another caller
 * opened is answered as an unknown session. `Host` and `Origin` are checked
 * first (`allowed-hosts.ts`).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrandError } from "@errand/core";
import { listenUrl } from "@errand/core/ops";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createErrandMcpServer, type ServerIdentity } from "../server/create-server.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import { allowedHostnames, refusedHost } from "./allowed-hosts.js";

/** The path the MCP endpoint is served at. */
export const MCP_PATH = "/mcp";

/** The largest request body read, in bytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Whom a request acts for: the services it is served through, and who it is (to bind its session). */
export interface McpAccess {
  services: ErrandMcpServices;
  /** Who the caller is (a key's id, or `loopback`): a session answers only to the caller that opened it. */
  principal: string;
}

/** Why a request is not served: 401 (no key, or one that does not verify) or 429 (its key's rate is spent). */
export interface McpRefusal {
  status: 401 | 429;
  message: string;
  /** With 429: when to come back, in seconds. */
  retryAfterSeconds?: number;
}

/** Options of {@link serveMcpOverHttp}. */
export interface McpHttpOptions {
  /** The address to listen on. */
  host: string;
  /** The port; 0 picks a free one. */
  port: number;
  /** Hostnames beside loopback's (or the bound address) that `Host` and `Origin` may name. */
  allowedHosts?: readonly string[];
  /**
   * Whom a request acts for, from its `Authorization` header (absent:
   * `undefined`), or why it is refused.
   */
  access(authorization: string | undefined): Promise<McpAccess | McpRefusal>;
  identity: ServerIdentity;
}

/** A listening MCP HTTP server. */
export interface McpHttpServer {
  /** The endpoint's URL, e.g. `http://127.0.0.1:4300/mcp`. */
  url: string;
  /** Closes every session and stops listening. */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  principal: string;
}

/** Answers `status` with a JSON-RPC error of `message` (no id: it answers no request it read). */
function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The value of a single-valued header. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Starts the server; resolves once it listens. Throws `port_in_use` for a port another process holds. */
export async function serveMcpOverHttp(options: McpHttpOptions): Promise<McpHttpServer> {
  const allowed = allowedHostnames(options.host, options.allowedHosts);
  const sessions = new Map<string, Session>();

  const openSession = async (access: McpAccess): Promise<StreamableHTTPServerTransport> => {
    const server = createErrandMcpServer(access.services, options.identity);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized(sessionId) {
        sessions.set(sessionId, { transport, server, principal: access.principal });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://server").pathname;
    const refusal = refusedHost(allowed, header(req, "host"), header(req, "origin"));
    if (refusal !== undefined) return refuse(res, 403, `Forbidden: ${refusal}`);
    if (path !== MCP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    const access = await options.access(header(req, "authorization"));
    if ("status" in access) {
      const headers: Record<string, string> =
        access.status === 401
          ? { "www-authenticate": 'Bearer realm="errand"' }
          : { "retry-after": String(access.retryAfterSeconds ?? 1) };
      return refuse(res, access.status, access.message, headers);
    }
    const sessionId = header(req, "mcp-session-id");
    if (sessionId === undefined) {
      const transport = await openSession(access);
      await transport.handleRequest(req, res);
      if (transport.sessionId === undefined) await transport.close();
      return;
    }
    const session = sessions.get(sessionId);
    if (session === undefined || session.principal !== access.principal) {
      return refuse(res, 404, "Session not found: initialize a new one");
    }
    await session.transport.handleRequest(req, res);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, "Internal error");
      else res.end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(options.port, options.host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    throw new ErrandError(
      "port_in_use",
      `the MCP server cannot listen on port ${options.port}: another process holds it; choose another with --port <N> (0 picks a free one)`,
      { cause: error },
    );
  }
  const { port } = http.address() as AddressInfo;
  return {
    url: listenUrl(options.host, port, MCP_PATH),
    async close() {
      await Promise.all([...sessions.values()].map((session) => session.transport.close()));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
