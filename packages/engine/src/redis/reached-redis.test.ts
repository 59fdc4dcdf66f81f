/**
 * A client marks the Redis it connected to as reached (`reached-redis.ts`),
 * so that its errors say the connection was lost, not that it could not
 * connect; a Redis it never connected to stays unreached.
 */
import { type RedisServer, startRedis } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createErrand } from "../client/client.js";
import { wasRedisReached } from "./reached-redis.js";
import { redisTarget } from "./redis-target.js";

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

describe("a client's Redis", () => {
  it("is reached once the client connected, and stays reached", async () => {
    const errand = createErrand({ connection: server.url });
    try {
      await vi.waitFor(() => expect(wasRedisReached(redisTarget(server.url))).toBe(true), {
        timeout: 20_000,
      });
    } finally {
      await errand.close();
    }
    expect(wasRedisReached(redisTarget(server.url))).toBe(true);
  });

  it("is not reached when nothing listens at its address", async () => {
    const gone = await startRedis();
    await gone.stop();
    const errand = createErrand({ connection: gone.url });
    try {
      // Long enough for ioredis to have tried, and failed, more than once.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(wasRedisReached(redisTarget(gone.url))).toBe(false);
    } finally {
      await errand.close();
    }
  });
});
