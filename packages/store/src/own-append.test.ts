import { once } from "node:events";
import { type AddressInfo, connect, createServer } from "node:net";
import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import { isSeqConflict } from "./errors.js";
import { createEventStore } from "./event-store.js";
import { modelResponded, queued, started } from "./test-support/events.js";
import { commandCalls, startRedisFixture } from "./test-support/redis.js";

describe("an append sent again after its reply was lost", () => {
  it("resolves with its events once, and a stale append of other events is still refused", async () => {
    const fx = await startRedisFixture();
    try {
      const store = fx.store("own-append");
      const runId = store.newRunId();
      await store.createRun(runId, queued());
      await store.appendEvents(runId, 1, [started()]);
      const batch = [modelResponded(1), modelResponded(2)];
      const first = await store.appendEvents(runId, 2, batch);
      const again = await store.appendEvents(runId, 2, batch);
      expect(again).toEqual(first);
      expect(again.map((event) => event.seq)).toEqual([3, 4]);
      // queued, started, then the batch in one entry: written once.
      expect(await fx.redis.xlen(store.keys.runLog(runId))).toBe(3);
      const other = store.appendEvents(runId, 2, [modelResponded(1, "another writer")]);
      await expect(other).rejects.toSatisfy(isSeqConflict);
      // A batch of one event went in, and another writer appended after it.
      const single = modelResponded(3);
      const went = await store.appendEvents(runId, 4, [single]);
      await store.appendEvents(runId, 5, [modelResponded(4)]);
      expect(await store.appendEvents(runId, 4, [single])).toEqual(went);
      // The first event of a batch written as one entry is not a batch of its own.
      await expect(store.appendEvents(runId, 2, [batch[0]!])).rejects.toSatisfy(isSeqConflict);
    } finally {
      await fx.stop();
    }
  });

  it("opens its run once when it is the run's first batch, with an idempotency key or without", async () => {
    const fx = await startRedisFixture();
    try {
      const store = fx.store("own-create");
      const plain = store.newRunId();
      const plainQueued = queued();
      const opened = await store.createRun(plain, plainQueued);
      // Sent again after its reply was lost, it finds the run it opened.
      expect(await store.createRun(plain, plainQueued)).toEqual(opened);
      const key = { key: "the same key", ttlMs: 60_000 };
      const keyed = store.newRunId(key.key);
      const keyedQueued = queued();
      const first = await store.createRun(keyed, keyedQueued, key);
      expect(first.deduplicated).toBe(false);
      // The key names this very run: the first try set it.
      expect(await store.createRun(keyed, keyedQueued, key)).toEqual(first);
      // Another run fired under the key is still a duplicate of the first.
      const other = store.newRunId(key.key);
      expect(await store.createRun(other, queued(), key)).toEqual({
        deduplicated: true,
        runId: keyed,
      });
      // A run-queued that is not the one stored is still refused.
      await expect(store.createRun(plain, queued({ agent: "another" }))).rejects.toMatchObject({
        code: "invalid_spec",
      });
      expect(await fx.redis.xlen(store.keys.runLog(plain))).toBe(1);
      expect(await fx.redis.xlen(store.keys.runLog(keyed))).toBe(1);
    } finally {
      await fx.stop();
    }
  });

  it("resolves when its reply dies with its connection and the reconnect is refused for a while", async () => {
    const fx = await startRedisFixture();
    // The writer talks to Redis through a relay that cuts its connection instead of passing
    // on the next reply: Redis ran the append, the writer never hears of it.
    let cutNextReply = false;
    const relay = createServer((client) => {
      const upstream = connect(Number(new URL(fx.server.url).port), "127.0.0.1");
      client.on("data", (chunk) => upstream.write(chunk));
      upstream.on("data", (chunk) => {
        if (!cutNextReply) return void client.write(chunk);
        cutNextReply = false;
        upstream.destroy();
        client.destroy();
      });
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.on("error", () => undefined);
      upstream.on("error", () => undefined);
    });
    relay.listen(0, "127.0.0.1");
    await once(relay, "listening");
    const { port } = relay.address() as AddressInfo;
    // It resends a command left unanswered once it is connected again, as ioredis does by default.
    const writer = new Redis({ port, host: "127.0.0.1", retryStrategy: () => 50 });
    try {
      const store = createEventStore({ redis: writer, prefix: "own-append-cut" });
      const runId = store.newRunId();
      await store.createRun(runId, queued());
      // As the maxclients fault does: once the writer's connection is gone, Redis is full.
      const clients = Number(/connected_clients:(\d+)/.exec(await fx.redis.info("clients"))![1]);
      await fx.redis.config("SET", "maxclients", String(clients - 1));
      const scriptCalls = async () =>
        (await commandCalls(fx.redis, "evalsha")) + (await commandCalls(fx.redis, "eval"));
      const callsBefore = await scriptCalls();
      cutNextReply = true;
      const appended = store.appendEvents(runId, 1, [started()]);
      await vi.waitFor(
        async () => {
          const stats = await fx.redis.info("stats");
          expect(Number(/rejected_connections:(\d+)/.exec(stats)![1])).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 50 },
      );
      await fx.redis.config("SET", "maxclients", "10000");
      const events = await appended;
      expect(events.map((event) => event.seq)).toEqual([2]);
      expect(await fx.redis.xlen(store.keys.runLog(runId))).toBe(2);
      // Run twice: the second call was refused as stale, and taken for the writer's own.
      expect((await scriptCalls()) - callsBefore).toBe(2);
    } finally {
      writer.disconnect();
      relay.close();
      await fx.stop();
    }
  });
});
