import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { isErrandError } from "@errand/core";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { RedisServer } from "./redis-server.js";
import { sendRedisCommand } from "./resp.js";
import { startRedis } from "./start-redis.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options?: Parameters<typeof startRedis>[0]): Promise<RedisServer> {
  const server = await startRedis(options);
  cleanups.push(() => server.stop());
  return server;
}

function client(server: RedisServer): Redis {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1, lazyConnect: true });
  cleanups.push(async () => redis.disconnect());
  return redis;
}

async function serverDir(server: RedisServer): Promise<string> {
  const [, dir] = (await client(server).config("GET", "dir")) as [string, string];
  return dir;
}

describe("startRedis with redis-server on PATH", () => {
  it("starts a private server on a loopback port that is not 6379", async () => {
    const server = await started();
    expect(server.source).toBe("local");
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).not.toBe(6379);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const redis = client(server);
    expect(await redis.ping()).toBe("PONG");
    expect(await redis.config("GET", "save")).toEqual(["save", ""]);
    expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
  });

  it("gives two servers two different ports", async () => {
    const [first, second] = await Promise.all([started(), started()]);
    expect(first.port).not.toBe(second.port);
    await client(first).set("where", "first");
    expect(await client(second).get("where")).toBeNull();
  });

  it("passes maxmemoryPolicy and extra args through", async () => {
    const server = await started({ maxmemoryPolicy: "noeviction", args: ["--maxclients", "77"] });
    const redis = client(server);
    expect(await redis.config("GET", "maxmemory-policy")).toEqual([
      "maxmemory-policy",
      "noeviction",
    ]);
    expect(await redis.config("GET", "maxclients")).toEqual(["maxclients", "77"]);
  });

  it("keeps a key written before kill() across restart() with appendonly", async () => {
    const server = await started({ appendonly: true, appendfsync: "always" });
    const key = `aof-${randomUUID()}:survivor`;
    const writer = client(server);
    await writer.set(key, "still here");
    writer.disconnect();

    await server.kill();
    await expect(sendRedisCommand(server, ["PING"], 500)).rejects.toThrow();

    await server.restart();
    expect(await client(server).get(key)).toBe("still here");
  });

  it("loses the data on kill() and restart() without appendonly", async () => {
    const server = await started();
    const key = `no-aof-${randomUUID()}:gone`;
    const writer = client(server);
    await writer.set(key, "volatile");
    writer.disconnect();

    await server.kill();
    await server.restart();
    expect(await client(server).get(key)).toBeNull();
  });

  it("stop() shuts the server down and removes its temporary directory", async () => {
    const server = await startRedis();
    const dir = await serverDir(server);
    expect(existsSync(dir)).toBe(true);

    await server.stop();
    expect(existsSync(dir)).toBe(false);
    await expect(sendRedisCommand(server, ["PING"], 500)).rejects.toThrow();
    await server.stop(); // idempotent
  });
});

describe("startRedis with REDIS_URL", () => {
  it("uses the URL as given and refuses to kill or restart it", async () => {
    const backing = await started();
    const previous = process.env.REDIS_URL;
    process.env.REDIS_URL = `redis://127.0.0.1:${backing.port}/0`;
    let server: RedisServer;
    try {
      server = await startRedis();
    } finally {
      if (previous === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = previous;
    }
    expect(server.source).toBe("env");
    expect(server.url).toBe(`redis://127.0.0.1:${backing.port}/0`);
    expect(server.port).toBe(backing.port);

    const killed = await server.kill().catch((error: unknown) => error);
    expect(isErrandError(killed, "redis_unavailable")).toBe(true);
    expect((killed as Error).message).toMatch(/kill\(\) is unavailable with REDIS_URL/);
    await expect(server.restart()).rejects.toThrow(/restart\(\) is unavailable with REDIS_URL/);

    await server.stop();
    expect(await client(backing).ping()).toBe("PONG");
  });
});

describe("startRedis with nothing available", () => {
  it("says how to get Redis (or falls back to a container where Docker runs)", async () => {
    const saved = { PATH: process.env.PATH, REDIS_URL: process.env.REDIS_URL };
    process.env.PATH = "";
    delete process.env.REDIS_URL;
    const outcome = await startRedis().then(
      (server) => {
        cleanups.push(() => server.stop());
        return server;
      },
      (error: unknown) => error,
    );
    process.env.PATH = saved.PATH;
    if (saved.REDIS_URL !== undefined) process.env.REDIS_URL = saved.REDIS_URL;

    if (isErrandError(outcome)) {
      expect(outcome.code).toBe("redis_unavailable");
      expect(outcome.message).toContain("apt-get install -y redis-server");
      expect(outcome.message).toContain("brew install redis");
      expect(outcome.message).toContain("start Docker");
      expect(outcome.message).toContain("REDIS_URL");
    } else {
      expect((outcome as RedisServer).source).toBe("container");
    }
  });
});
