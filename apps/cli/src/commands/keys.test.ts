/**
 * `errand keys create|list|revoke`, the built CLI on a real Redis: create
 * prints the key once with the line saying it will not be shown again (and
 * --json the same), list never prints the key, revoke makes the key stop
 * verifying (exit 1 for an unknown id), bad scopes are refused with exit 2
 * before anything is written. The create and the revoke are the built CLI,
 * spawned; the rest run `runCli` in this process, as the binary does.
 */
import { createAccessKeys } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-keys");
let server: RedisServer;

/** The built `errand`, spawned. */
function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

/** `errand` run in this process (what the spawned one calls), for the cases that need no process of their own. */
async function errandHere(args: readonly string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli([...args, "--prefix", prefix], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { REDIS_URL: server.url },
    cwd: process.cwd(),
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
});
afterAll(async () => {
  await server?.stop();
});

describe("errand keys", () => {
  it("creates a key shown once, lists it without the key, and revokes it", async () => {
    const created = await errand([
      "keys",
      "create",
      "--scopes",
      "fire,read",
      "--agents",
      "greeter",
      "--tenant",
      "acme",
      "--name",
      "ci",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const [key, details, notice, ...rest] = created.stdout.trimEnd().split("\n");
    expect(rest).toEqual([]);
    expect(key).toMatch(/^errk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const keyId = key!.slice(5, 21);
    expect(details).toBe(
      `keyId ${keyId} · name ci · scopes fire,read · agents greeter · tenant acme`,
    );
    expect(notice).toMatch(/will not be shown again/);

    const asJson = await errandHere([
      "keys",
      "create",
      "--scopes",
      "read",
      "--rpm",
      "30",
      "--json",
    ]);
    expect(asJson.code, asJson.stderr).toBe(0);
    const second = JSON.parse(asJson.stdout) as Record<string, unknown>;
    expect(second).toMatchObject({ scopes: ["read"], requestsPerMinute: 30 });
    expect(second.notice).toMatch(/will not be shown again/);

    const listed = await errandHere(["keys", "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const { items, count } = JSON.parse(listed.stdout) as {
      items: { keyId: string }[];
      count: number;
    };
    expect(count).toBe(2);
    expect(items.map((item) => item.keyId)).toEqual([keyId, second.keyId]);
    const table = await errandHere(["keys", "list"]);
    expect(table.stdout).toContain(keyId);
    for (const output of [listed.stdout, table.stdout]) {
      expect(output).not.toContain(key!.slice(22));
      expect(output).not.toContain(String(second.key).slice(22));
    }

    const keys = createAccessKeys({ connection: server.url, prefix, verifyCacheMs: 0 });
    try {
      expect(await keys.verify(key!)).toMatchObject({ keyId, tenant: "acme" });
      const revoked = await errand(["keys", "revoke", keyId, "--json"]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toEqual({ keyId, revoked: true });
      expect(await keys.verify(key!)).toBeUndefined();
    } finally {
      await keys.close();
    }
    const again = await errandHere(["keys", "revoke", keyId]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("no such key");
  });

  it("refuses missing or unknown scopes with exit code 2, writing nothing", async () => {
    const keyIds = async () => (await errandHere(["keys", "list", "--json"])).stdout;
    const before = await keyIds();
    for (const scopes of [[], ["--scopes", "read,delete"], ["--scopes", ","]]) {
      const refused = await errandHere(["keys", "create", ...scopes]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--scopes/);
    }
    const bad = await errandHere(["keys", "create", "--scopes", "read", "--tenant", "a b"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/tenant/);
    expect(await keyIds()).toBe(before);
  });
});
