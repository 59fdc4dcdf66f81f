/**
 * Connections that fail against real servers — a password refused, none
 * given, a user without a command ioredis needs, TLS with an untrusted CA, a
 * plain client on a TLS port, a port nobody listens on — are each named by
 * `redisConnectionError`, from the error ioredis emitted.
 */
import { readFileSync } from "node:fs";
import { isErrandError } from "@errand/core";
import { type RedisServer, startRedis, startTlsRedis, type TlsRedisServer } from "@errand/testing";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisConnectionError } from "./connection-errors.js";

const PASSWORD = "the-right-password";

let server: RedisServer;
let admin: Redis;
let tls: TlsRedisServer;

beforeAll(async () => {
  [server, tls] = await Promise.all([startRedis(), startTlsRedis()]);
  admin = new Redis(server.url);
  await admin.acl("SETUSER", "app", "on", `>${PASSWORD}`, "~*", "+@all");
  await admin.acl("SETUSER", "no-ping", "on", `>${PASSWORD}`, "~*", "+@all", "-ping");
});
afterAll(async () => {
  admin?.disconnect();
  await Promise.all([server?.stop(), tls?.stop()]);
});

/** Connects once, without retrying; resolves with the error ioredis emitted, or `undefined` once PING answered. */
async function failureOf(url: string, options: RedisOptions = {}): Promise<unknown> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...options,
  });
  let emitted: unknown;
  redis.on("error", (error) => {
    emitted = error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return emitted ?? error;
  } finally {
    redis.disconnect();
  }
}

const address = () => `${server.host}:${server.port}`;

describe("redisConnectionError", () => {
  it("says the credentials were refused for a wrong password", async () => {
    const error = redisConnectionError(
      await failureOf(`redis://app:wrong@${address()}`),
      "redis://app:***@there",
    );
    expect(isErrandError(error, "redis_unavailable")).toBe(true);
    expect(error.details).toMatchObject({ reason: "credentials" });
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^Redis at redis:\/\/app:\*\*\*@there refused the credentials \(authentication failed: WRONGPASS/,
    );
  });

  it("says authentication is required when no password is given to a server that wants one", async () => {
    await admin.config("SET", "requirepass", PASSWORD);
    try {
      const error = redisConnectionError(await failureOf(`redis://${address()}`), "here");
      expect(error.details).toMatchObject({ reason: "credentials" });
      expect(error.message).toContain("requires authentication and none was given");
      expect(await failureOf(`redis://:${PASSWORD}@${address()}`)).toBeUndefined();
    } finally {
      await admin.auth(PASSWORD);
      await admin.config("SET", "requirepass", "");
    }
  });

  it("says which permission a user lacks, and where the ACL errand needs is", async () => {
    const error = redisConnectionError(
      await failureOf(`redis://no-ping:${PASSWORD}@${address()}`),
      "here",
    );
    expect(error.details).toMatchObject({ reason: "permission" });
    expect(error.message).toMatch(/NOPERM.*'ping'/);
    expect(error.message).toContain("errand doctor --acl");
  });

  it("names a TLS handshake whose certificate is not trusted, and how to trust its CA", async () => {
    expect(await failureOf(tls.tlsUrl, { tls: { ca: readFileSync(tls.caFile) } })).toBeUndefined();
    for (const options of [{}, { tls: { ca: readFileSync(tls.otherCaFile) } }]) {
      const error = redisConnectionError(await failureOf(tls.tlsUrl, options), tls.tlsUrl);
      expect(error.details).toMatchObject({ reason: "tls" });
      expect(error.message).toMatch(/^the TLS handshake with Redis at rediss:\/\/.* failed: /);
      expect(error.message).toContain("NODE_EXTRA_CA_CERTS");
    }
  });

  it("hints at rediss:// when a plain client is cut off by a TLS port", async () => {
    const plainOnTls = tls.tlsUrl.replace("rediss://", "redis://");
    const error = redisConnectionError(await failureOf(plainOnTls), plainOnTls);
    expect(error.details).toMatchObject({ reason: "unreachable" });
    expect(error.message).toContain("if the server only accepts TLS, use rediss://");
  });

  it("calls a port nobody listens on unreachable, and retryable", async () => {
    const error = redisConnectionError(
      await failureOf("redis://127.0.0.1:1"),
      "redis://127.0.0.1:1",
    );
    expect(error).toMatchObject({ retryable: true, details: { reason: "unreachable" } });
    expect(error.message).toMatch(
      /^cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
  });
});
