/**
 * The Streamable HTTP transport's doors, over real HTTP: the official SDK
 * client through `StreamableHTTPClientTransport` lists the tools; a `Host`
 * or `Origin` naming another server is refused with 403 (DNS rebinding); a
 * request `access` refuses gets 401 naming nothing but the missing key; a
 * session answers only the caller that opened it. No Redis: the services
 * here are never called.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrandMcpServices } from "../server/errand-services.js";
import { type McpHttpServer, serveMcpOverHttp } from "./serve-http.js";

const unused = () => {
  throw new Error("not called in this test");
};
const services = {
  errand: unused as never,
  agents: async () => [],
  reportUnexpected: () => {},
} satisfies ErrandMcpServices;

const KEYS: Record<string, string> = { "Bearer key-a": "a", "Bearer key-b": "b" };

let server: McpHttpServer;

beforeAll(async () => {
  server = await serveMcpOverHttp({
    host: "127.0.0.1",
    port: 0,
    identity: { name: "errand", version: "test" },
    access: async (authorization) => {
      const principal = authorization === undefined ? undefined : KEYS[authorization];
      return principal === undefined
        ? { status: 401, message: "Unauthorized: send Authorization: Bearer <errand key>" }
        : { services, principal };
    },
  });
});

afterAll(async () => {
  await server?.close();
});

/** A raw HTTP answer. */
interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs `message` to the server with exactly `headers` (node:http lets a test set Host, fetch does not). */
function post(message: unknown, headers: Record<string, string>): Promise<RawAnswer> {
  const url = new URL(server.url);
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A JSON-RPC initialize with `headers`. */
function initialize(headers: Record<string, string>): Promise<RawAnswer> {
  return post(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    },
    headers,
  );
}

describe("errand mcp over Streamable HTTP", () => {
  it("serves the official SDK client that sends its key", async () => {
    const client = new Client({ name: "errand-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: "Bearer key-a" } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("wait_runs");
    const agents = await client.callTool({ name: "list_agents", arguments: {} });
    expect(agents.content).toEqual([
      { type: "text", text: '{"items":[],"count":0,"hasMore":false}' },
    ]);
    await client.close();
  });

  it("refuses a Host or an Origin that names another server (DNS rebinding), before anything else", async () => {
    const foreignHost = await initialize({ host: "evil.example", authorization: "Bearer key-a" });
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await initialize({
      origin: "http://evil.example",
      authorization: "Bearer key-a",
    });
    expect(foreignOrigin.status).toBe(403);
    const localOrigin = await initialize({
      origin: "http://localhost:3000",
      authorization: "Bearer key-a",
    });
    expect(localOrigin.status).toBe(200);
  });

  it("answers 401 without a known key, saying only that a key is needed", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong" }];
    for (const headers of attempts) {
      const response = await initialize(headers);
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="errand"');
      expect(response.body).toContain("Authorization: Bearer");
      expect(response.body).not.toContain("key-a");
    }
  });

  it("answers a session only to the caller that opened it", async () => {
    const opened = await initialize({ authorization: "Bearer key-a" });
    const sessionId = String(opened.headers["mcp-session-id"] ?? "");
    expect(sessionId).not.toBe("");
    const list = (authorization: string) =>
      post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25", authorization },
      );
    expect((await list("Bearer key-b")).status).toBe(404);
    expect((await list("Bearer key-a")).status).toBe(200);
  });
});
