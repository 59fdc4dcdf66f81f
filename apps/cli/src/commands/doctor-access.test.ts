/**
 * Reaching a Redis that guards itself: credentials refused (a wrong password
 * of an ACL user, none given to a server with `requirepass`) and TLS (a
 * trusted CA, an untrusted one) are named as such by `errand doctor` and
 * `errand fire`, which exit 3; no credential of the URL is ever printed;
 * `errand doctor --acl` prints the least-privilege ACL user, the one in
 * infra/redis-acl.conf for the default prefix.
 */
import { readFile } from "node:fs/promises";
import { REDACTED } from "@errand/core";
import {
  type RedisServer,
  startRedis,
  startTlsRedis,
  type TlsRedisServer,
  uniqueKeyPrefix,
} from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorCheck } from "../doctor/check.js";
import { runErrand } from "../test-support/run-errand.js";

const PASSWORD = "pw-4f1c9e2a7b";
const prefix = uniqueKeyPrefix("cli-doctor-access");

interface Report {
  ok: boolean;
  checks: DoctorCheck[];
}

async function doctorJson(url: string, env: Record<string, string> = {}) {
  const outcome = await runErrand(["doctor", "--json", "--prefix", prefix], {
    env: { REDIS_URL: url, ...env },
  });
  return { ...outcome, report: JSON.parse(outcome.stdout) as Report };
}

const reachable = (report: Report) => report.checks.find((c) => c.name === "redis reachable");

describe("errand doctor and fire against a Redis that asks for credentials", () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedis({ maxmemoryPolicy: "noeviction" });
    admin = new Redis(server.url);
    await admin.acl("SETUSER", "app", "on", `>${PASSWORD}`, "~*", "&*", "+@all");
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  const address = () => `${server.host}:${server.port}`;

  it("says authentication failed for a wrong password, and exits 3", async () => {
    const url = `redis://app:wrong-${PASSWORD}@${address()}`;
    const { code, report, stdout } = await doctorJson(url);
    expect(code).toBe(3);
    expect(reachable(report)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/refused the credentials \(authentication failed: WRONGPASS/),
      fix: expect.stringContaining("user name and password"),
    });
    expect(stdout).not.toContain(PASSWORD);

    const fired = await runErrand(["fire", "anyone", "--input", '"x"', "--prefix", prefix], {
      env: { REDIS_URL: url },
    });
    expect(fired.code).toBe(3);
    expect(fired.stderr).toMatch(
      /^errand: Redis at redis:\/\/app:\[redacted\]@127\.0\.0\.1:\d+ refused the credentials \(authentication failed:/,
    );
    expect(fired.stderr).not.toContain(PASSWORD);
  });

  it("says authentication is required when the server has requirepass and the URL no password", async () => {
    await admin.config("SET", "requirepass", PASSWORD);
    try {
      const { code, report } = await doctorJson(`redis://${address()}`);
      expect(code).toBe(3);
      expect(reachable(report)?.detail).toMatch(
        /requires authentication and none was given: authentication failed \(NOAUTH/,
      );
      const fired = await runErrand(["fire", "anyone", "--input", '"x"'], {
        env: { REDIS_URL: `redis://${address()}` },
      });
      expect(fired.code).toBe(3);
      expect(fired.stderr).toContain("authentication failed (NOAUTH");
    } finally {
      await admin.auth(PASSWORD);
      await admin.config("SET", "requirepass", "");
    }
  });

  it("prints no credential of a URL that works: neither its password nor a ?password=", async () => {
    for (const url of [
      `redis://app:${PASSWORD}@${address()}`,
      `redis://${address()}/?username=app&password=${PASSWORD}`,
    ]) {
      const { report, stdout } = await doctorJson(url);
      expect(reachable(report)).toMatchObject({ ok: true });
      expect(reachable(report)?.detail).toContain(REDACTED);
      expect(stdout).not.toContain(PASSWORD);
      const text = await runErrand(["doctor", "--prefix", prefix], { env: { REDIS_URL: url } });
      expect(text.stdout).toMatch(/ok +redis reachable +redis:\/\/.*\[redacted\].* answered PING/);
      expect(text.stdout).not.toContain(PASSWORD);
    }
  });
});

describe("errand doctor over TLS", () => {
  let server: TlsRedisServer;
  beforeAll(async () => {
    server = await startTlsRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("reaches a rediss:// URL whose CA the process trusts", async () => {
    const { report } = await doctorJson(server.tlsUrl, { NODE_EXTRA_CA_CERTS: server.caFile });
    expect(reachable(report)).toMatchObject({ ok: true });
    expect(report.checks.find((c) => c.name === "writes")).toMatchObject({ ok: true });
  });

  it("names a TLS handshake with an untrusted certificate, with the fix, and exits 3", async () => {
    const { code, report } = await doctorJson(server.tlsUrl, {
      NODE_EXTRA_CA_CERTS: server.otherCaFile,
    });
    expect(code).toBe(3);
    expect(reachable(report)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^the TLS handshake with Redis at rediss:\/\/.* failed: /),
      fix: expect.stringContaining("NODE_EXTRA_CA_CERTS"),
    });
  });
});

describe("errand doctor --acl", () => {
  it("prints infra/redis-acl.conf for the default prefix, without a Redis", async () => {
    const { code, stdout } = await runErrand(["doctor", "--acl"]);
    expect(code).toBe(0);
    const shipped = await readFile(
      new URL("../../../../infra/redis-acl.conf", import.meta.url),
      "utf8",
    );
    expect(stdout).toBe(shipped);
  });

  it("fills in the prefix given", async () => {
    const { code, stdout } = await runErrand(["doctor", "--acl", "--prefix", "billing"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^user errand reset on ><password> ~billing:\* &billing:\* \+/m);
  });
});
