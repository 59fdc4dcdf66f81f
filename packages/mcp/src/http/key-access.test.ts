/**
 * errand's access keys on the MCP HTTP transport, with a real Redis and
 * worker, through the official SDK client: a server beyond loopback (keys
 * required) answers 401 without a key or with a wrong one; a key of tenant
 * A starts runs under A and meets tenant B's runs as unknown ones in every
 * tool (wait, get, cancel, the result resource); a read-only key cannot
 * start runs (`forbidden`); a key limited to some agents lists
 * those alone; a revoked key fails within a second.
 */
import { type AccessKeys, createAccessKeys } from "@errand/engine";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantedServices } from "../server/granted-services.js";
import { type McpStack, parseAnswer, startMcpStack } from "../test-support/mcp-stack.js";
import { accessByKeys } from "./key-access.js";
import { type McpHttpServer, serveMcpOverHttp } from "./serve-http.js";

let stack: McpStack;
let accessKeys: AccessKeys;
let server: McpHttpServer;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startMcpStack();
  accessKeys = createAccessKeys({
    connection: stack.redisUrl,
    prefix: stack.prefix,
    verifyCacheMs: 500,
  });
  server = await serveMcpOverHttp({
    host: "127.0.0.1",
    port: 0,
    identity: { name: "errand", version: "test" },
    access: accessByKeys({
      accessKeys,
      loopback: false,
      servicesFor: (grant) => grantedServices(stack.shared, grant),
    }),
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.close();
  await accessKeys?.close();
  await stack?.stop();
});

/** An SDK client sending `key`. */
async function clientWith(key: string): Promise<Client> {
  const client = new Client({ name: "errand-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return parseAnswer((await client.callTool({ name, arguments: args })) as CallToolResult);
}

describe("access keys on errand mcp over HTTP", () => {
  it("refuses a request without a key, or with a wrong one, with 401", async () => {
    for (const key of [undefined, "errand_wrong"]) {
      const client = new Client({ name: "errand-test", version: "1.0.0" });
      const headers: Record<string, string> =
        key === undefined ? {} : { authorization: `Bearer ${key}` };
      const connecting = client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
      );
      await expect(connecting).rejects.toThrow(/401|Unauthorized/);
    }
  });

  it("keeps each tenant to its own runs in every tool", async () => {
    const a = await clientWith(
      (await accessKeys.create({ scopes: ["fire", "read", "cancel", "answer"], tenant: "acme" }))
        .key,
    );
    const b = await clientWith(
      (await accessKeys.create({ scopes: ["fire", "read", "cancel", "answer"], tenant: "globex" }))
        .key,
    );
    const started = await call(a, "start_runs", {
      runs: [{ agent: "echo", input: { script: [{ say: "acme's" }] } }],
    });
    expect(started.value.succeeded).toBe(1);
    const runId = started.value.results[0].runId;
    const own = await call(a, "wait_runs", { runIds: [runId] });
    expect(own.value.results[0]).toMatchObject({ runId, status: "succeeded", text: "acme's" });
    const result = await stack.errand.result(runId);
    expect(result).toMatchObject({ tenant: "acme" });

    const waited = await call(b, "wait_runs", { runIds: [runId], waitSeconds: 0 });
    expect(waited.value.results[0]).toMatchObject({ runId, ok: false, status: "not_found" });
    const got = await call(b, "get_run", { runId });
    expect(got).toMatchObject({ isError: true, value: { error: { code: "not_found" } } });
    const events = await call(b, "get_run", { runId, detail: "events" });
    expect(events.value.error.code).toBe("not_found");
    const cancelled = await call(b, "cancel_runs", { runIds: [runId] });
    expect(cancelled.value.results[0]).toMatchObject({ ok: false, error: { code: "not_found" } });
    const retried = await call(b, "start_runs", { runs: [{ retryOf: runId }] });
    expect(retried.value.results[0]).toMatchObject({ ok: false, error: { code: "not_found" } });
    await expect(b.readResource({ uri: `errand://runs/${runId}/result` })).rejects.toThrow(
      /-32002/,
    );
    const read = await a.readResource({ uri: `errand://runs/${runId}/result` });
    expect(JSON.stringify(read.contents)).toContain("acme's");
  });

  it("refuses start_runs to a read-only key (forbidden); lists only a key's agents", async () => {
    const reader = await clientWith(
      (await accessKeys.create({ scopes: ["read"], agents: ["echo"] })).key,
    );
    const refused = await call(reader, "start_runs", {
      runs: [{ agent: "echo", input: { script: [] } }],
    });
    expect(refused).toMatchObject({
      isError: true,
      value: { error: { code: "forbidden", retryable: false } },
    });
    const agents = await call(reader, "list_agents", {});
    expect(agents.value.items.map((agent: { name: string }) => agent.name)).toEqual(["echo"]);
  });

  it("stops serving a revoked key within a second", async () => {
    const created = await accessKeys.create({ scopes: ["read"] });
    const client = await clientWith(created.key);
    expect((await call(client, "list_agents", {})).isError).toBe(false);
    await accessKeys.revoke(created.grant.keyId);
    const revokedAt = Date.now();
    let refusedAt: number | undefined;
    while (refusedAt === undefined && Date.now() - revokedAt < 5_000) {
      try {
        await call(client, "list_agents", {});
      } catch {
        refusedAt = Date.now();
      }
    }
    expect(refusedAt).toBeDefined();
    expect((refusedAt ?? Infinity) - revokedAt).toBeLessThan(1_000);
  });
});
