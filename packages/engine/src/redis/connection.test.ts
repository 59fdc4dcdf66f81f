/**
 * Subscribing on a connection still in its handshake: with `whenReady`
 * first, the subscription works and the connection never fails its ready
 * check (without it, ioredis writes the SUBSCRIBE during the handshake and
 * its own ready check is refused in subscriber mode). A worker's jobs
 * connection sends the completions of the jobs that end in one turn in one
 * write, while BullMQ blocks on a duplicate that is not coalesced. A
 * coalesced connection lost under a turn's commands, some written, some
 * still corked, sends them all again once back, each answered by its own reply.
 */
import { uniqueKeyPrefix } from "@errand/testing";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, vi } from "vitest";
import { createLogger } from "../logger.js";
import { redisTest as it } from "../test-support/engine-test.js";
import { openConnection, openJobsConnection, whenReady } from "./connection.js";

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

describe("openConnection with coalesceWrites", () => {
  it("sends again, in order, the commands of a lost connection, both those written and those still corked, each answered by its own reply", async ({
    engineRedis,
  }) => {
    const connection = openConnection(engineRedis.url, {
      logger: createLogger({ level: "silent" }),
      name: "coalesced",
      coalesceWrites: true,
    }) as Redis;
    try {
      await whenReady(connection);
      const socket = connection.stream;
      const written = Array.from({ length: 20 }, (_, i) => connection.echo(`written ${i}`));
      // After the turn's uncork (queued first): these are written, and not yet answered.
      const corked = await new Promise<Promise<string>[]>((resolve) =>
        setImmediate(() => {
          expect(socket.writableCorked).toBe(0);
          const commands = Array.from({ length: 20 }, (_, i) => connection.echo(`corked ${i}`));
          expect(socket.writableCorked).toBe(1);
          // Lost in the same turn: the corked commands never left, the written ones got no reply.
          socket.destroy();
          resolve(commands);
        }),
      );
      expect(await Promise.all([...written, ...corked])).toEqual([
        ...Array.from({ length: 20 }, (_, i) => `written ${i}`),
        ...Array.from({ length: 20 }, (_, i) => `corked ${i}`),
      ]);
      expect(connection.stream).not.toBe(socket);
      expect(await connection.echo("after")).toBe("after");
    } finally {
      connection.disconnect();
    }
  });
});

/** A socket's writes: each command ioredis writes, and each write of them to the kernel. */
interface SocketWrites {
  write(...args: unknown[]): boolean;
  _write(...args: unknown[]): void;
  _writev(...args: unknown[]): void;
}

describe("openJobsConnection", () => {
  it("sends the completions of jobs that end in one turn in one write, and blocks on a duplicate that is not coalesced", async ({
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
      // Coalesced, not auto-pipelined; nor is the blocking duplicate, which writes as it is asked.
      expect(connection.options.enableAutoPipelining).toBe(false);
      expect(blocking.options.enableAutoPipelining).toBe(false);
      expect(Object.hasOwn((blocking as unknown as Redis).stream, "write")).toBe(false);
      const socket = connection.stream as unknown as SocketWrites;
      const commands = vi.spyOn(socket, "write");
      const writes = [vi.spyOn(socket, "_write"), vi.spyOn(socket, "_writev")];
      const allCompleted = emitted(worker, "completed", jobs);
      release();
      await allCompleted;
      // One command a job (its moveToFinished), the socket written to once or twice.
      expect(commands.mock.calls.length).toBeGreaterThanOrEqual(jobs);
      const socketWrites = writes.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
      expect(socketWrites).toBeGreaterThan(0);
      expect(socketWrites).toBeLessThanOrEqual(2);
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
