import { setTimeout as delay } from "node:timers/promises";
import { announcedRunIds } from "@errand/store/ops";
import { afterAll, describe, expect } from "vitest";
import { redisTest } from "../test-support/engine-test.js";
import { createCollector } from "./create-collector.js";
import { besides, startTestProcess, type TestProcess } from "./test-support/child-process.js";
import {
  expectedIndexedState,
  readIndexedState,
  waitUntilIndexed,
} from "./test-support/indexed-state.js";
import { pendingByConsumer } from "./test-support/pending-by-consumer.js";
import { planRuns, settlingRunIds, writeRuns } from "./test-support/planned-runs.js";
import { type EngineRedisFixture, TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

const COLLECTOR_PROCESS = besides(import.meta.url, "./test-support/collector-process.ts");

const processes: TestProcess[] = [];

afterAll(async () => {
  for (const running of processes) await running.kill("SIGKILL");
});

function startCollectorProcess(
  fx: EngineRedisFixture,
  prefix: string,
  consumer: string,
): TestProcess {
  const options = {
    connection: fx.url,
    prefix,
    shards: TEST_SHARDS,
    consumer,
    batchSize: 20,
    blockMs: 200,
    claimIdleMs: 300,
  };
  const started = startTestProcess(COLLECTOR_PROCESS, [JSON.stringify(options)]);
  processes.push(started);
  return started;
}

/**
 * Kills `doomed` while it holds delivered entries it has not acknowledged.
 * A batch's entries are acknowledged only after the script call that writes
 * what they need: with the server's writes paused (CLIENT PAUSE WRITE: reads
 * go on) the collector can neither finish a batch nor acknowledge one, so
 * what it holds then stays pending until it dies.
 */
async function killMidBatch(
  fx: EngineRedisFixture,
  doomed: TestProcess,
  streams: readonly string[],
): Promise<void> {
  for (;;) {
    await fx.redis.client("PAUSE", 10_000, "WRITE");
    try {
      if (((await pendingByConsumer(fx, streams)).get("doomed") ?? 0) > 0) {
        await doomed.kill("SIGKILL");
        return;
      }
    } finally {
      await fx.redis.client("UNPAUSE");
    }
    await delay(1);
  }
}

describe("a collector killed with SIGKILL", () => {
  it("is replaced by one that finishes its work: every result and index is what an undisturbed collector writes, nothing skipped, nothing twice", async ({
    engineRedis: fx,
  }) => {
    const disturbed = fx.prefixed("crash-disturbed");
    const calm = fx.prefixed("crash-calm");
    const runs = planRuns({
      count: 300,
      shards: TEST_SHARDS,
      parents: 20,
      steps: 4,
      seed: "crash",
    });
    await writeRuns(disturbed.store, runs);
    await writeRuns(calm.store, runs);
    const settling = settlingRunIds(runs);
    const streams = Array.from({ length: TEST_SHARDS }, (_, shard) =>
      disturbed.keys.shardEvents(shard),
    );

    // Kill the first collector as soon as it has settled 40 runs: in the middle of its work.
    const subscriber = fx.connect();
    let announced = 0;
    const fortySettled = new Promise<void>((resolve) => {
      subscriber.on("message", (_channel: string, message: string) => {
        announced += announcedRunIds(message).length;
        if (announced >= 40) resolve();
      });
    });
    await subscriber.subscribe(
      ...Array.from({ length: TEST_SHARDS }, (_, shard) => disturbed.keys.settledChannel(shard)),
    );
    const doomed = startCollectorProcess(fx, disturbed.prefix, "doomed");
    await fortySettled;
    await killMidBatch(fx, doomed, streams);

    // It died mid-batch: holding delivered, unacknowledged entries, with runs left to settle.
    expect((await pendingByConsumer(fx, streams)).get("doomed") ?? 0).toBeGreaterThan(0);
    const written = await Promise.all(
      settling.map((runId) => fx.redis.exists(disturbed.keys.result(runId))),
    );
    expect(written.filter(Boolean).length).toBeLessThan(settling.length);

    // Another collector takes over and claims what the dead one held.
    const heir = startCollectorProcess(fx, disturbed.prefix, "heir");
    await heir.line((line) => line === "ready");
    await waitUntilIndexed(fx.redis, disturbed.keys, settling, TEST_SHARDS, 60_000);
    await heir.kill("SIGTERM");
    expect((await pendingByConsumer(fx, streams)).get("doomed") ?? 0).toBe(0);

    // The same runs, collected by one collector that nobody disturbs.
    const undisturbed = createCollector({
      connection: fx.url,
      prefix: calm.prefix,
      shards: TEST_SHARDS,
      batchSize: 20,
      reaper: false,
    });
    await undisturbed.start();
    await waitUntilIndexed(fx.redis, calm.keys, settling, TEST_SHARDS, 60_000);
    await undisturbed.stop();

    const afterCrash = await readIndexedState(fx.redis, disturbed.keys, runs, TEST_SHARDS);
    const withoutCrash = await readIndexedState(fx.redis, calm.keys, runs, TEST_SHARDS);
    expect(afterCrash).toEqual(withoutCrash);
    expect(afterCrash).toEqual(await expectedIndexedState(disturbed.store, runs));
  }, 300_000);
});
