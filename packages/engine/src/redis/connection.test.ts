/**
 * Subscribing on a connection still in its handshake: with `whenReady`
 * first, the subscription works and the connection never fails its ready
 * check (without it, ioredis writes the SUBSCRIBE during the handshake and
 * its own ready check is refused in subscriber mode). A worker's jobs
 * connection sends the completions of the jobs that end in one tick in one
 * write, while BullMQ blocks on a duplicate that is not auto-pipelined.
 */
import { uniqueKeyPrefix } from "@errand/testing";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, vi } from "vitest";
import { createLogger } from "../logger.js";
import { redisTest as it } from "../test-support/engine-test.js";
import { openJobsConnection, whenReady } from "./connection.js";

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

/** Resolves once `worker` emitted `event` `count` times. */
function emitted(worker: Worker, event: "active" | "completed", count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    worker.on(event, () => {
      seen += 1;
      if (seen === count) resolve();
    });
  });
}

describe("openJobsConnection", () => {
  it("sends the completions of jobs that end in one tick in one write, and blocks on a duplicate that is not auto-pipelined", async ({
    engineRedis,
  }) => {
    const jobs = 20;
    const connection = openJobsConnection(engineRedis.url, {
      logger: createLogger({ level: "silent" }),
      name: "worker jobs",
    }) as Redis;
    const prefix = uniqueKeyPrefix("jobs-connection");
    const queue = new Queue("q", { connection, prefix });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = new Worker("q", () => released, { connection, prefix, concurrency: jobs });
    try {
      const allActive = emitted(worker, "active", jobs);
      const blocking = await worker.waitUntilReady();
      await queue.addBulk(
        Array.from({ length: jobs }, (_, index) => ({ name: "j", data: { index } })),
      );
      await allActive;
      expect(connection.options.enableAutoPipelining).toBe(true);
      expect(blocking.options.enableAutoPipelining).toBe(false);
      const writes = vi.spyOn(connection.stream, "write");
      const allCompleted = emitted(worker, "completed", jobs);
      release();
      await allCompleted;
      expect(writes.mock.calls.length).toBeGreaterThan(0);
      expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
      expect(await queue.getCompletedCount()).toBe(jobs);
    } finally {
      release();
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});
