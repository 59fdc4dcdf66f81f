/**
 * Subscribing on a connection still in its handshake: with `whenReady`
 * first, the subscription works and the connection never fails its ready
 * check (without it, ioredis writes the SUBSCRIBE during the handshake and
 * its own ready check is refused in subscriber mode).
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { whenReady } from "./connection.js";

let server: RedisServer;
let publisher: Redis;
const channel = `${uniqueKeyPrefix("connection")}:channel`;

beforeAll(async () => {
  server = await startRedis();
  publisher = new Redis(server.url);
});

afterAll(async () => {
  publisher.disconnect();
  await server.stop();
});

describe("whenReady", () => {
  it("lets a subscription started during the handshake wait for the ready check", async () => {
    const subscriber = new Redis(server.url, { maxRetriesPerRequest: null });
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

  it("resolves at once on a ready connection, and once a connection that never got ready has ended", async () => {
    await whenReady(publisher);
    const closed = new Redis(server.url, { lazyConnect: true });
    const ended = whenReady(closed);
    closed.disconnect();
    await ended;
    expect(closed.status).toBe("end");
  });
});
