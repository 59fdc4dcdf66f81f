/**
 * Withdrawing a run its producer wrote but could not enqueue: a run nothing
 * happened to since its `run-queued` loses its log, head and blobs and its
 * place in the shard's indexes — even while Redis is out of memory and
 * refuses writes; a run that moved on is left as it is.
 */
import { shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "./event-store.js";
import { runIndexMember } from "./outcomes/index-runs.js";
import { cancelRequested, queued, started } from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("withdraw");
});
afterAll(async () => {
  await fx?.stop();
});

/** Writes a queued run and indexes it as the collector would; resolves with what withdrawing it takes. */
async function queuedRun() {
  const runId = store.newRunId();
  const [event] = await store.appendEvents(runId, 0, [queued()]);
  const shard = shardOfRunId(runId);
  const member = runIndexMember(event!.at, runId);
  const indexes = [
    store.keys.runIndex(shard),
    store.keys.runIndexByStatus(shard, "active"),
    store.keys.runIndexByAgent(shard, "researcher"),
  ];
  for (const index of indexes) await fx.redis.zadd(index, 0, member);
  await fx.redis.zadd(store.keys.deadlines(shard), 1, runId);
  return { run: { runId, agent: "researcher", createdAt: event!.at }, indexes, member };
}

/** Where a run is indexed: for each index, whether it holds the run. */
async function indexedIn(indexes: readonly string[], member: string, runId: string) {
  const shard = shardOfRunId(runId);
  const scores = await Promise.all(indexes.map((index) => fx.redis.zscore(index, member)));
  const deadline = await fx.redis.zscore(store.keys.deadlines(shard), runId);
  return [...scores, deadline].map((score) => score !== null);
}

describe("withdrawRun", () => {
  it("deletes a run nothing happened to since its run-queued, and takes it out of the indexes", async () => {
    const { run, indexes, member } = await queuedRun();
    expect(await store.withdrawRun(run)).toBe("withdrawn");
    expect(await store.readHead(run.runId)).toBeUndefined();
    expect(await store.readLog(run.runId)).toEqual([]);
    expect(await indexedIn(indexes, member, run.runId)).toEqual([false, false, false, false]);
    expect(await store.withdrawRun(run)).toBe("absent");
  });

  it("withdraws while Redis is out of memory: it only deletes", async () => {
    const { run } = await queuedRun();
    const [, previous] = (await fx.redis.config("GET", "maxmemory")) as string[];
    await fx.redis.config("SET", "maxmemory", "1");
    try {
      await expect(fx.redis.set(`${store.keys.prefix}:probe`, "x")).rejects.toThrow(/^OOM /);
      expect(await store.withdrawRun(run)).toBe("withdrawn");
    } finally {
      await fx.redis.config("SET", "maxmemory", previous ?? "0");
    }
    expect(await store.readHead(run.runId)).toBeUndefined();
  });

  it("leaves a run that moved on (started, or reached by a cancel) as it is", async () => {
    for (const next of [started(), cancelRequested()]) {
      const { run, indexes, member } = await queuedRun();
      await store.appendEvents(run.runId, 1, [next]);
      expect(await store.withdrawRun(run)).toBe("moved-on");
      expect(await store.readHead(run.runId)).toMatchObject({ seq: 2 });
      expect(await indexedIn(indexes, member, run.runId)).toEqual([true, true, true, true]);
    }
  });
});
