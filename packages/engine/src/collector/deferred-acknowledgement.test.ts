import { announcedRunIds } from "@errand/store/ops";
import { afterAll, describe, expect } from "vitest";
import { redisTest } from "../test-support/engine-test.js";
import { type CollectorOptions, createCollector } from "./create-collector.js";
import { besides, startTestProcess, type TestProcess } from "./test-support/child-process.js";
import {
  expectedIndexedState,
  type IndexedState,
  readIndexedState,
  waitUntilIndexed,
} from "./test-support/indexed-state.js";
import { pendingByConsumer } from "./test-support/pending-by-consumer.js";
import {
  type PlannedRun,
  planRuns,
  settlingRunIds,
  writeRuns,
} from "./test-support/planned-runs.js";
import {
  type EngineRedisFixture,
  type PrefixedStore,
  TEST_SHARDS,
} from "./test-support/redis-fixture.js";

const it = redisTest;

const COLLECTOR_PROCESS = besides(import.meta.url, "./test-support/collector-process.ts");

const processes: TestProcess[] = [];

afterAll(async () => {
  for (const running of processes) await running.kill("SIGKILL");
});

/**
 * A collector that holds what it applied until it stops: neither its batch
 * size, nor its interval, nor an empty read (it blocks a minute) comes within the test.
 */
const HOLDING: Partial<CollectorOptions> = {
  batchSize: 1_000,
  blockMs: 60_000,
  ackIntervalMs: 60_000,
  claimIdleMs: 3_600_000,
  reaper: false,
};

/** The calls of `command` the server counted so far (`INFO commandstats`; inside scripts too). */
async function callsOf(fx: EngineRedisFixture, command: string): Promise<number> {
  const stats = await fx.redis.info("commandstats");
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

/** Waits until what a collector holding its acknowledgements applied is every run's due state (its pending entries aside). */
async function waitUntilApplied(
  fx: EngineRedisFixture,
  { keys, store }: PrefixedStore,
  runs: readonly PlannedRun[],
): Promise<IndexedState> {
  const expected = await expectedIndexedState(store, runs);
  await expect
    .poll(() => readIndexedState(fx.redis, keys, runs, TEST_SHARDS), { timeout: 30_000 })
    .toEqual(expected);
  return expected;
}

function shardStreams(keys: { shardEvents(shard: number): string }): string[] {
  return Array.from({ length: TEST_SHARDS }, (_, shard) => keys.shardEvents(shard));
}

describe("acknowledgements deferred over several batches", () => {
  it("take fewer XACKs than the batches they acknowledge, runs arriving one at a time", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("ack-fewer");
    const runs = planRuns({ count: 60, shards: TEST_SHARDS, steps: 1, seed: "ack-fewer" });
    // Every index call that settles runs announces them in one message: one a batch.
    const subscriber = fx.connect();
    let announcements = 0;
    subscriber.on("message", (_channel: string, message: string) => {
      if (announcedRunIds(message).length > 0) announcements += 1;
    });
    await subscriber.subscribe(
      ...Array.from({ length: TEST_SHARDS }, (_, shard) => keys.settledChannel(shard)),
    );
    const collector = createCollector({
      connection: fx.url,
      prefix,
      shards: TEST_SHARDS,
      reaper: false,
    });
    await collector.start();
    const xacksBefore = await callsOf(fx, "xack");
    try {
      // One-step runs appended as a worker does, one after the other: each read mostly finds one.
      for (const run of runs) {
        await store.appendEvents(run.runId, 0, run.events.slice(0, 1));
        await store.appendEvents(run.runId, 1, run.events.slice(1));
      }
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      // Acknowledged within the interval once the stream is quiet, the collector still running.
      await expect.poll(async () => (await collector.metrics()).pending).toBe(0);
    } finally {
      await collector.stop();
      subscriber.disconnect();
    }
    const xacks = (await callsOf(fx, "xack")) - xacksBefore;
    expect(xacks).toBeGreaterThan(0);
    expect(announcements).toBeGreaterThanOrEqual(TEST_SHARDS);
    expect(xacks).toBeLessThan(announcements);
    expect(await readIndexedState(fx.redis, keys, runs, TEST_SHARDS)).toEqual(
      await expectedIndexedState(store, runs),
    );
  });

  it("are all sent when the collector stops: nothing it applied stays pending", async ({
    engineRedis: fx,
  }) => {
    const prefixed = fx.prefixed("ack-at-stop");
    const { prefix, keys, store } = prefixed;
    const runs = planRuns({ count: 40, shards: TEST_SHARDS, steps: 2, seed: "ack-at-stop" });
    await writeRuns(store, runs);
    const streams = shardStreams(keys);
    const collector = createCollector({
      ...HOLDING,
      connection: fx.url,
      prefix,
      shards: TEST_SHARDS,
      consumer: "holder",
    });
    await collector.start();
    try {
      await waitUntilApplied(fx, prefixed, runs);
      // Applied, and held: results are there before their entries are acknowledged.
      expect((await pendingByConsumer(fx, streams)).get("holder") ?? 0).toBeGreaterThan(0);
    } finally {
      await collector.stop();
    }
    expect(await pendingByConsumer(fx, streams)).toEqual(new Map());
  });

  it("are lost with a killed collector, whose restart applies its entries again with the same results", async ({
    engineRedis: fx,
  }) => {
    const prefixed = fx.prefixed("ack-crash");
    const { prefix, keys, store } = prefixed;
    const runs = planRuns({
      count: 60,
      shards: TEST_SHARDS,
      parents: 6,
      steps: 3,
      seed: "ack-crash",
    });
    await writeRuns(store, runs);
    const streams = shardStreams(keys);
    const options = {
      ...HOLDING,
      connection: fx.url,
      prefix,
      shards: TEST_SHARDS,
      consumer: "phoenix",
    };
    const doomed = startTestProcess(COLLECTOR_PROCESS, [JSON.stringify(options)]);
    processes.push(doomed);
    await doomed.line((line) => line === "ready");
    const beforeCrash = await waitUntilApplied(fx, prefixed, runs);
    const held = (await pendingByConsumer(fx, streams)).get("phoenix") ?? 0;
    expect(held).toBeGreaterThan(0);
    await doomed.kill("SIGKILL");
    expect((await pendingByConsumer(fx, streams)).get("phoenix")).toBe(held);

    // Restarted under its name, it re-reads what it owes and applies it again, then acknowledges it.
    const restarted = createCollector({
      connection: fx.url,
      prefix,
      shards: TEST_SHARDS,
      consumer: "phoenix",
      reaper: false,
    });
    await restarted.start();
    try {
      await expect
        .poll(async () => (await restarted.metrics()).pending, { timeout: 20_000 })
        .toBe(0);
    } finally {
      await restarted.stop();
    }
    const afterRestart = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
    expect(afterRestart).toEqual(beforeCrash);
    expect(await fx.redis.xlen(keys.deadLetters(0))).toBe(0);
  }, 300_000);
});
