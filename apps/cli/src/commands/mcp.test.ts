/**
 * `errand mcp` as a client meets it, spawned from the built CLI beside a
 * worker and a collector on a private Redis: the walk-through of
 * `mcp-walk-through.ts` through the official SDK `Client`, over stdio (the
 * client spawns `errand mcp`) and over Streamable HTTP (`errand mcp --http
 * --port 0`); and, beyond loopback, the key every request needs.
 */
import { fileURLToPath } from "node:url";
import { createAccessKeys } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WALK_THROUGH_DASHBOARD, walkThrough } from "../test-support/mcp-walk-through.js";
import { type ErrandProcess, spawnErrand } from "../test-support/processes.js";
import { ERRAND_BIN, runErrand } from "../test-support/run-errand.js";

const MCP_AGENTS = fileURLToPath(new URL("../test-support/mcp-agents.mjs", import.meta.url));

let server: RedisServer;
const prefix = uniqueKeyPrefix("mcp");
const started: ErrandProcess[] = [];

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  const env = { REDIS_URL: server.url };
  started.push(
    ...(await Promise.all([
      spawnErrand(["collector", "--prefix", prefix], env, "collector ready"),
      spawnErrand(["worker", "--agents", MCP_AGENTS, "--prefix", prefix], env, "worker ready"),
    ])),
  );
});

afterAll(async () => {
  await Promise.all(started.map((process) => process.stop()));
  await server?.stop();
});

describe("errand mcp", () => {
  it("walks through over stdio, the CLI spawned by the SDK client", async () => {
    const client = new Client({ name: "errand-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [ERRAND_BIN, "mcp", "--prefix", prefix],
      env: {
        PATH: process.env.PATH ?? "",
        REDIS_URL: server.url,
        ERRAND_DASHBOARD_URL: WALK_THROUGH_DASHBOARD,
      },
      stderr: "pipe",
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "errand" });
      await walkThrough(client);
    } finally {
      await client.close();
    }
  });

  it("walks through over Streamable HTTP", async () => {
    const mcp = await spawnErrand(
      ["mcp", "--http", "--port", "0", "--prefix", prefix],
      { REDIS_URL: server.url, ERRAND_DASHBOARD_URL: WALK_THROUGH_DASHBOARD },
      "Ctrl-C to stop",
    );
    started.push(mcp);
    const url = /errand mcp: (http:\S+)/.exec(mcp.output())?.[1] ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "errand-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await walkThrough(client);
    } finally {
      await client.close();
    }
    expect(await mcp.stop()).toBe(0);
  });

  it("beyond loopback, serves only requests with a key; refuses --port without --http (exit 2)", async () => {
    const env = { REDIS_URL: server.url };
    const [beyond, stray] = await Promise.all([
      spawnErrand(
        ["mcp", "--http", "--host", "0.0.0.0", "--port", "0", "--prefix", prefix],
        env,
        "Ctrl-C to stop",
      ),
      runErrand(["mcp", "--port", "4100"], { env }),
    ]);
    started.push(beyond);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("--http");
    // Listening on every interface, it prints a URL that opens: loopback's, and says where it listens.
    const printed = /errand mcp: (http:\/\/\S+)/.exec(beyond.output())?.[1];
    expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(beyond.output()).toContain("listening on every interface (0.0.0.0)");
    const url = new URL(printed!);
    const keyless = new Client({ name: "errand-test", version: "1.0.0" });
    await expect(keyless.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(
      /401|Unauthorized/,
    );
    const accessKeys = createAccessKeys({
      connection: server.url,
      prefix,
      logger: createLogger({ level: "silent" }),
    });
    const { key } = await accessKeys.create({ scopes: ["read"] });
    await accessKeys.close();
    const keyed = new Client({ name: "errand-test", version: "1.0.0" });
    await keyed.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const agents = (await keyed.callTool({ name: "list_agents", arguments: {} })) as CallToolResult;
    expect(agents.isError ?? false).toBe(false);
    await keyed.close();
  });
});
