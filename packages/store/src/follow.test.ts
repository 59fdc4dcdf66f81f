import type { RunEvent } from "@errand/core";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EventStore } from "./event-store.js";
import { finished, modelResponded, queued, started } from "./test-support/events.js";
import { commandCalls, type RedisFixture, startRedisFixture } from "./test-support/redis.js";

const BLOCK_MS = 30_000;

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("follow");
});
afterAll(async () => {
  await fx?.stop();
});

/** A new connection and its client id (asked before it may block). */
async function dedicatedConnection(): Promise<{ connection: Redis; id: number }> {
  const connection = fx.connect();
  return { connection, id: (await connection.client("ID")) as number };
}

/** Resolves once the client `id` is blocked in an XREAD on the server. */
async function blockedOnServer(id: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const clients = (await fx.redis.client("LIST", "ID", String(id))) as string;
      expect(clients).toMatch(/ flags=b /);
      expect(clients).toMatch(/ cmd=xread /);
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe("followLog", () => {
  it("yields events appended after it started, woken from blocking reads", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    const { connection, id } = await dedicatedConnection();
    const xreadsBefore = await commandCalls(fx.redis, "xread");

    const follower = store
      .followLog(runId, { afterSeq: 1, blockMs: BLOCK_MS }, connection)
      [Symbol.asyncIterator]();
    const firstNext = follower.next();
    await blockedOnServer(id);

    const batch = await store.appendEvents(runId, 1, [started(), modelResponded(1)]);
    expect(await firstNext).toEqual({ done: false, value: batch[0] });
    expect(await follower.next()).toEqual({ done: false, value: batch[1] });

    const nextAfterBatch = follower.next();
    await blockedOnServer(id);
    const [last] = await store.appendEvents(runId, 3, [finished("done")]);
    expect(await nextAfterBatch).toEqual({ done: false, value: last });
    // The log ends at the terminal event: the follower ends without another read.
    expect(await follower.next()).toEqual({ done: true, value: undefined });

    // Two reads, each woken by an append: no polling.
    expect((await commandCalls(fx.redis, "xread")) - xreadsBefore).toBe(2);
  });

  it("yields the events already logged after afterSeq first", async () => {
    const runId = store.newRunId();
    const logged = await store.appendEvents(runId, 0, [queued(), started(), finished()]);
    const seen: RunEvent[] = [];
    for await (const event of store.followLog(
      runId,
      { afterSeq: 1, blockMs: BLOCK_MS },
      fx.connect(),
    )) {
      seen.push(event);
    }
    expect(seen).toEqual(logged.slice(1));
  });

  it("ends at once for a settled run that was read to its end, and for an unknown run", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), finished()]);
    const connection = fx.connect();
    const xreadsBefore = await commandCalls(fx.redis, "xread");

    const settled = store.followLog(runId, { afterSeq: 2, blockMs: BLOCK_MS }, connection);
    expect(await settled[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    const unknown = store.followLog(store.newRunId(), { blockMs: BLOCK_MS }, connection);
    expect(await unknown[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    expect(await commandCalls(fx.redis, "xread")).toBe(xreadsBefore);
  });

  it("ends when the signal aborts while it is blocked", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    const { connection, id } = await dedicatedConnection();
    const abort = new AbortController();

    const follower = store
      .followLog(runId, { afterSeq: 1, blockMs: BLOCK_MS, signal: abort.signal }, connection)
      [Symbol.asyncIterator]();
    const next = follower.next();
    await blockedOnServer(id);
    abort.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    connection.disconnect();
  });
});
