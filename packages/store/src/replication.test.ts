import { isErrandError } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EventStore } from "./event-store.js";
import {
  finished,
  modelResponded,
  outputRecorded,
  queued,
  started,
} from "./test-support/events.js";
import { commandCalls, type RedisFixture, startRedisFixture } from "./test-support/redis.js";

/** A run of `store` started and answered once: the next append may settle it. */
async function startedRun(store: EventStore): Promise<string> {
  const runId = store.newRunId();
  await store.appendEvents(runId, 0, [queued(), started(), modelResponded(1)]);
  return runId;
}

describe('durability "replicated" on a master with a replica', () => {
  let master: RedisFixture;
  let replicaFixture: RedisFixture;
  let store: EventStore;

  beforeAll(async () => {
    master = await startRedisFixture();
    replicaFixture = await startRedisFixture();
    const replica = replicaFixture.redis;
    await replica.replicaof(master.server.host, master.server.port);
    await vi.waitFor(
      async () => expect(await replica.info("replication")).toMatch(/^master_link_status:up/m),
      { timeout: 30_000, interval: 100 },
    );
    store = master.store("replicated", { durability: "replicated", replicationTimeoutMs: 5_000 });
  }, 60_000);
  afterAll(async () => {
    await replicaFixture?.stop();
    await master?.stop();
  });

  it("waits for the replica before a terminal event or an output is acknowledged, not before the rest", async () => {
    const runId = await startedRun(store);
    const waitsBefore = await commandCalls(master.redis, "wait");
    await store.appendEvents(runId, 3, [modelResponded(2)]);
    expect(await commandCalls(master.redis, "wait")).toBe(waitsBefore);

    await store.appendEvents(runId, 4, [outputRecorded(2, { answer: "yes" })]);
    expect(await commandCalls(master.redis, "wait")).toBe(waitsBefore + 1);
    await store.appendEvents(runId, 5, [finished()]);
    expect(await commandCalls(master.redis, "wait")).toBe(waitsBefore + 2);
    // Acknowledged means on the replica: read there at once.
    const [last] = await replicaFixture.redis.xrevrange(
      store.keys.runLog(runId),
      "+",
      "-",
      "COUNT",
      1,
    );
    expect(last?.[0]).toBe("0-6");
  });

  it("confirms the runs a fire opened with one WAIT for the master, not one each", async () => {
    const runIds = [store.newRunId(), store.newRunId(), store.newRunId()];
    const waitsBefore = await commandCalls(master.redis, "wait");
    await Promise.all(runIds.map((runId) => store.createRun(runId, queued())));
    // Opening a run does not wait: its caller confirms the batch.
    expect(await commandCalls(master.redis, "wait")).toBe(waitsBefore);
    expect(await store.runsNotReplicated(runIds)).toEqual(new Map());
    expect(await commandCalls(master.redis, "wait")).toBe(waitsBefore + 1);
    for (const runId of runIds) {
      expect(await replicaFixture.redis.exists(store.keys.runLog(runId))).toBe(1);
    }
  });

  it("does not wait with the default durability", async () => {
    const plain = master.store("acknowledged");
    const runId = await startedRun(plain);
    const waitsBefore = await commandCalls(master.redis, "wait");
    await plain.appendEvents(runId, 3, [finished()]);
    expect(await plain.runsNotReplicated([runId])).toEqual(new Map());
    expect(await commandCalls(master.redis, "wait")).toBe(waitsBefore);
  });
});

describe('durability "replicated" without a replica', () => {
  let alone: RedisFixture;

  beforeAll(async () => {
    alone = await startRedisFixture();
  });
  afterAll(async () => {
    await alone?.stop();
  });

  it("fails the settling append with a retryable redis_unavailable once the timeout passed", async () => {
    const store = alone.store("alone", { durability: "replicated", replicationTimeoutMs: 200 });
    const runId = await startedRun(store);
    const error = await store
      .appendEvents(runId, 3, [finished()])
      .catch((caught: unknown) => caught);
    expect(isErrandError(error, "redis_unavailable")).toBe(true);
    expect((error as { retryable: boolean }).retryable).toBe(true);
    expect(String(error)).toMatch(/no replica acknowledged/);
  });

  it("names each opened run its master did not confirm, with a retryable redis_unavailable", async () => {
    const store = alone.store("alone-open", {
      durability: "replicated",
      replicationTimeoutMs: 200,
    });
    const runIds = [store.newRunId(), store.newRunId()];
    for (const runId of runIds) await store.createRun(runId, queued());
    const notReplicated = await store.runsNotReplicated(runIds);
    expect([...notReplicated.keys()].sort()).toEqual([...runIds].sort());
    for (const error of notReplicated.values()) {
      expect(isErrandError(error, "redis_unavailable") && error.retryable).toBe(true);
      expect(error.message).toMatch(/no replica acknowledged the append .* within 200 ms/);
    }
  });

  it("refuses a replication timeout that is not a whole number of ms", () => {
    expect(() =>
      alone.store("bad-timeout", { durability: "replicated", replicationTimeoutMs: 0 }),
    ).toThrow(/replicationTimeoutMs/);
  });
});
