/**
 * Subscribing on a connection still in its handshake: with `whenReady`
 * first, the subscription works and the connection never fails its ready
 * check (without it, ioredis writes the SUBSCRIBE during the handshake and
 * its own ready check is refused in subscriber mode).
 */
import { uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { describe, expect } from "vitest";
import { whenReady } from "./connection.js";
import { redisTest as it } from "./test-support/engine-test.js";

const channel = `${uniqueKeyPrefix("connection")}:channel`;

describe("whenReady", () => {
  it("lets a subscription started during the handshake wait for the ready check", async ({
    engineRedis,
  }) => {
    const publisher = engineRedis.redis;
    const subscriber = new Redis(engineRedis.url, { maxRetriesPerRequest: null });
    const firstError = new Promise<string>((resolve) => {
      subscriber.once("error", (error: Error) => resolve(`error: ${error.message}`));
    });
    const subscribed = new Promise<unknown>((resolve, reject) => {
      subscriber.once("connect", () => {
        whenReady(subscriber)
          .then(() => subscriber.subscribe(channel))
          .then(resolve, reject);
      });
    });
    const message = new Promise<string>((resolve) => {
      subscriber.on("message", (_channel: string, text: string) => resolve(text));
    });
    try {
      const ready = subscribed.then(() => whenReady(subscriber)).then(() => "ready");
      expect(await Promise.race([ready, firstError])).toBe("ready");
      await publisher.publish(channel, "hello");
      expect(await message).toBe("hello");
    } finally {
      subscriber.disconnect();
    }
  });

  it("resolves at once on a ready connection, and once a connection that never got ready has ended", async ({
    engineRedis,
  }) => {
    await whenReady(engineRedis.redis);
    const closed = new Redis(engineRedis.url, { lazyConnect: true });
    const ended = whenReady(closed);
    closed.disconnect();
    await ended;
    expect(closed.status).toBe("end");
  });
});
