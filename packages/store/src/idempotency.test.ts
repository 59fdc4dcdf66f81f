/**
 * Creating runs under idempotency keys: the append checks and sets the key
 * with the run's `run-queued`, so a second run under a kept key is never
 * written; the key's run is placed on the key's shard; a refused append
 * uses no key; withdrawing the run releases its key; the head keeps the
 * run's priority.
 */
import { shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "./event-store.js";
import { idempotencyShard } from "./idempotency.js";
import { queued } from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

const DAY_MS = 24 * 60 * 60 * 1_000;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("idempotency");
});
afterAll(async () => {
  await fx?.stop();
});

describe("createRun with an idempotency key", () => {
  it("writes the first run under a key and answers every later one with it, writing nothing", async () => {
    const key = { key: "order-1", ttlMs: DAY_MS };
    const first = store.newRunId(key.key);
    expect(shardOfRunId(first)).toBe(idempotencyShard(key.key, store.shards));
    expect(await store.createRun(first, queued(), key)).toMatchObject({ deduplicated: false });

    const second = store.newRunId(key.key);
    expect(await store.createRun(second, queued(), key)).toEqual({
      deduplicated: true,
      runId: first,
    });
    expect(await store.readHead(second)).toBeUndefined();
    expect(await store.readIdempotencyKey(key.key)).toBe(first);
  });

  it("refuses a run placed off its key's shard, and uses no key when the append is refused", async () => {
    const key = "order-2";
    const shard = idempotencyShard(key, store.shards);
    let elsewhere = store.newRunId();
    while (shardOfRunId(elsewhere) === shard) elsewhere = store.newRunId();
    await expect(
      store.createRun(elsewhere, queued(), { key, ttlMs: DAY_MS }),
    ).rejects.toMatchObject({
      code: "internal",
    });

    const existing = store.newRunId(key);
    await store.appendEvents(existing, 0, [queued()]);
    await expect(store.createRun(existing, queued(), { key, ttlMs: DAY_MS })).rejects.toMatchObject(
      { code: "invalid_spec" },
    );
    expect(await store.readIdempotencyKey(key)).toBeUndefined();
  });

  it("releases the key when the run is withdrawn, and only while it names that run", async () => {
    const key = { key: "order-3", ttlMs: DAY_MS };
    const runId = store.newRunId(key.key);
    const created = await store.createRun(runId, queued(), key);
    const [event] = created.deduplicated ? [] : created.events;
    const run = { runId, agent: "researcher", createdAt: event!.at, idempotencyKey: key.key };
    expect(await store.withdrawRun(run)).toBe("withdrawn");
    expect(await store.readIdempotencyKey(key.key)).toBeUndefined();

    const next = store.newRunId(key.key);
    expect(await store.createRun(next, queued(), key)).toMatchObject({ deduplicated: false });
    expect(await store.withdrawRun(run)).toBe("absent");
    expect(await store.readIdempotencyKey(key.key)).toBe(next);
  });

  it("keeps the run's priority in its head", async () => {
    const runId = store.newRunId();
    await store.createRun(runId, queued({ priority: 7 }));
    expect(await store.readHead(runId)).toMatchObject({ priority: 7 });
    const plain = store.newRunId();
    await store.createRun(plain, queued());
    expect((await store.readHead(plain))?.priority).toBeUndefined();
  });
});
