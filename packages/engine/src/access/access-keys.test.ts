/**
 * Access keys on a real Redis: a key is shown once and only its hash is kept
 * (the key reaches Redis never — a MONITOR of every command, script
 * arguments included, and a dump of every value never hold it — nor any
 * log line); `verify` answers the key's grant, nothing for a wrong or
 * revoked key, and refuses a string that cannot be a key without a Redis
 * read (its Redis is unreachable); a key revoked on one connection stops
 * verifying on another within a second; `admit` holds a key to its
 * requests a minute across connections.
 */
import { uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EngineRedisFixture,
  startEngineRedis,
} from "../collector/test-support/redis-fixture.js";
import { captureLogs } from "../test-support/log-capture.js";
import { LOOPBACK_GRANT } from "./access-grant.js";
import { type AccessKeys, createAccessKeys, MAX_VERIFY_CACHE_MS } from "./access-keys.js";

let fx: EngineRedisFixture;
const opened: AccessKeys[] = [];
const logs = captureLogs();

beforeAll(async () => {
  fx = await startEngineRedis();
});
afterAll(async () => {
  for (const keys of opened) await keys.close();
  await fx?.stop();
});

/** Access keys on the file's Redis under `prefix`, closed at the end. */
function open(prefix: string, options: { requestsPerMinute?: number } = {}): AccessKeys {
  const keys = createAccessKeys({ connection: fx.url, prefix, logger: logs.logger, ...options });
  opened.push(keys);
  return keys;
}

/** Every value stored under `prefix`, as text: strings, hashes, sorted sets. */
async function dumpValues(prefix: string): Promise<string> {
  const names = await fx.redis.keys(`${prefix}:*`);
  const values = await Promise.all(
    names.map(async (name) => {
      const type = await fx.redis.type(name);
      if (type === "hash") return JSON.stringify(await fx.redis.hgetall(name));
      if (type === "zset") return JSON.stringify(await fx.redis.zrange(name, 0, -1, "WITHSCORES"));
      if (type === "string") return (await fx.redis.get(name)) ?? "";
      return type;
    }),
  );
  return [...names, ...values].join("\n");
}

describe("an access key", () => {
  it("is shown once, verifies to its grant, is listed without its key or hash, and stops verifying once revoked", async () => {
    const keys = open(uniqueKeyPrefix("keys-life"));
    const { key, grant } = await keys.create({
      scopes: ["fire", "read"],
      agents: ["plain"],
      tenant: "acme",
      name: "ci",
    });
    expect(key).toMatch(/^errk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(grant).toEqual({
      keyId: key.slice(5, 21),
      scopes: ["fire", "read"],
      agents: ["plain"],
      tenant: "acme",
    });
    expect(await keys.verify(key)).toEqual(grant);

    const [listed, ...others] = await keys.list();
    expect(others).toEqual([]);
    expect(listed).toMatchObject({
      keyId: grant.keyId,
      name: "ci",
      scopes: ["fire", "read"],
      agents: ["plain"],
      tenant: "acme",
    });
    expect(Date.parse(listed!.createdAt)).not.toBeNaN();
    expect(Date.parse(listed!.lastUsedAt ?? "")).not.toBeNaN();
    expect(JSON.stringify(listed)).not.toContain(key.slice(22));
    expect(Object.keys(listed!)).not.toContain("hash");

    expect(await keys.revoke(grant.keyId)).toBe(true);
    expect(await keys.verify(key)).toBeUndefined();
    expect(await keys.revoke(grant.keyId)).toBe(false);
    expect(await keys.list()).toEqual([]);
  });

  it("does not verify with a wrong secret, another prefix, or a shape that cannot be a key", async () => {
    const prefix = uniqueKeyPrefix("keys-wrong");
    const keys = open(prefix);
    const { key } = await keys.create({ scopes: ["read"] });
    const wrongSecret = `${key.slice(0, 22)}${key.at(22) === "A" ? "B" : "A"}${key.slice(23)}`;
    expect(await keys.verify(wrongSecret)).toBeUndefined();
    expect(await open(uniqueKeyPrefix("keys-other")).verify(key)).toBeUndefined();
    for (const bad of [
      "",
      "errk_",
      key.slice(0, -1),
      `${key}x`,
      key.toUpperCase(),
      `Bearer ${key}`,
    ]) {
      expect(await keys.verify(bad)).toBeUndefined();
    }
    expect(await keys.verify(key)).toMatchObject({ scopes: ["read"] });
  });

  it("refuses a string that cannot be a key without reading Redis: its Redis is unreachable, and it answers at once", async () => {
    const unreachable = createAccessKeys({
      connection: "redis://127.0.0.1:1",
      logger: captureLogs().logger,
    });
    try {
      expect(await unreachable.verify("errk_not-a-key")).toBeUndefined();
      expect(await unreachable.verify(`errk_${"0".repeat(16)}_short`)).toBeUndefined();
    } finally {
      await unreachable.close();
    }
  });

  it("is refused at creation without a scope, with an unknown scope, an empty agent list or a malformed tenant", async () => {
    const keys = open(uniqueKeyPrefix("keys-invalid"));
    for (const options of [
      { scopes: [] },
      { scopes: ["delete"] },
      { scopes: ["read"], agents: [] },
      { scopes: ["read"], tenant: "acme corp" },
    ]) {
      await expect(keys.create(options as never)).rejects.toMatchObject({
        code: "invalid_spec",
        retryable: false,
      });
    }
    expect(await keys.list()).toEqual([]);
  });
});

describe("a revoked key", () => {
  it("stops verifying on another connection within a second, and on the revoking one at once", async () => {
    const prefix = uniqueKeyPrefix("keys-revoke");
    const here = open(prefix);
    const elsewhere = open(prefix);
    const { key, grant } = await here.create({ scopes: ["read"] });
    expect(await elsewhere.verify(key)).toEqual(grant); // now in elsewhere's cache
    expect(await here.verify(key)).toEqual(grant);

    expect(await here.revoke(grant.keyId)).toBe(true);
    expect(await here.verify(key)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, MAX_VERIFY_CACHE_MS));
    expect(await elsewhere.verify(key)).toBeUndefined();
  });
});

describe("admit", () => {
  it("admits a key's requests a minute, then refuses with the time until the next, on every connection; loopback always", async () => {
    const prefix = uniqueKeyPrefix("keys-rate");
    const one = open(prefix, { requestsPerMinute: 3 });
    const two = open(prefix, { requestsPerMinute: 3 });
    const { grant } = await one.create({ scopes: ["read"] });
    const { grant: own } = await one.create({ scopes: ["read"], requestsPerMinute: 1 });

    const answers = [await one.admit(grant), await two.admit(grant), await one.admit(grant)];
    expect(answers).toEqual([{ admitted: true }, { admitted: true }, { admitted: true }]);
    for (const keys of [one, two]) {
      const refused = await keys.admit(grant);
      expect(refused.admitted).toBe(false);
      const { retryAfterMs } = refused as { retryAfterMs: number };
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(retryAfterMs).toBeLessThanOrEqual(60_000 / 3);
    }
    // Its own budget: one a minute.
    expect(await two.admit(own)).toEqual({ admitted: true });
    expect((await two.admit(own)).admitted).toBe(false);
    for (let request = 0; request < 10; request++) {
      expect(await one.admit(LOOPBACK_GRANT)).toEqual({ admitted: true });
    }
  });
});

describe("the key itself", () => {
  it("never reaches Redis — no command, no script argument, no value — nor a log line", async () => {
    const prefix = uniqueKeyPrefix("keys-secret");
    const monitor = await fx.connect().monitor();
    const sent: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => sent.push(args.join(" ")));
    const keys = open(prefix);
    const { key, grant } = await keys.create({ scopes: ["fire", "read"], tenant: "acme" });
    const { key: revoked, grant: revokedGrant } = await keys.create({ scopes: ["read"] });
    expect(await keys.verify(key)).toEqual(grant);
    expect(await keys.verify(revoked)).toEqual(revokedGrant);
    await keys.admit(grant);
    await keys.list();
    await keys.revoke(revokedGrant.keyId);
    await keys.verify(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`);
    await expect.poll(() => sent.some((line) => line.includes(grant.keyId))).toBe(true);
    monitor.disconnect();

    const secrets = [key, revoked].flatMap((whole) => [whole, whole.slice(22)]);
    const everything = [sent.join("\n"), await dumpValues(prefix), logs.text()];
    for (const text of everything) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(logs.lines.filter((line) => line.keyId === grant.keyId).map((line) => line.msg)).toEqual(
      ["access key created"],
    );
    expect(
      logs.lines.some(
        (line) => line.msg === "access key revoked" && line.keyId === revokedGrant.keyId,
      ),
    ).toBe(true);
  });
});
