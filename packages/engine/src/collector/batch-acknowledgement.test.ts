import { describe, expect } from "vitest";
import { redisTest } from "../test-support/engine-test.js";
import { DEFAULT_COLLECTOR_GROUP } from "./consumer-group.js";
import { createCollector } from "./create-collector.js";
import {
  expectedIndexedState,
  readIndexedState,
  waitUntilIndexed,
} from "./test-support/indexed-state.js";
import { planRuns, settlingRunIds } from "./test-support/planned-runs.js";
import { TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

describe("a batch's acknowledgement", () => {
  it("comes after the batch's index call, in an XACK of its own; runs queued by an append that indexed them need no call", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("ack-in-call");
    // One-step runs appended as a worker does: `run-queued`, then the rest in one append.
    const runs = planRuns({
      count: 40,
      shards: TEST_SHARDS,
      steps: 1,
      endings: ["text", "output", "failed"],
      seed: "ack-in-call",
    });
    for (const run of runs) await store.appendEvents(run.runId, 0, run.events.slice(0, 1));
    for (const run of runs) await store.appendEvents(run.runId, 1, run.events.slice(1));

    const monitor = await fx.connect().monitor();
    const commands: { name: string; inScript: boolean }[] = [];
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      commands.push({ name: String(args[0]).toLowerCase(), inScript: source === "lua" });
    });
    const collector = createCollector({
      connection: fx.url,
      prefix,
      shards: TEST_SHARDS,
      batchSize: 7,
      blockMs: 100,
      reaper: false,
    });
    await collector.start();
    try {
      await waitUntilIndexed(fx.redis, keys, settlingRunIds(runs), TEST_SHARDS);
      await expect.poll(async () => (await collector.metrics()).pending).toBe(0);
    } finally {
      await collector.stop();
      monitor.disconnect();
    }
    expect(await readIndexedState(fx.redis, keys, runs, TEST_SHARDS)).toEqual(
      await expectedIndexedState(store, runs),
    );
    const count = (name: string, inScript: boolean) =>
      commands.filter((command) => command.name === name && command.inScript === inScript).length;
    // The index calls acknowledge nothing: the shard loop does, a batch's worth of entries an XACK at most.
    const indexCalls = count("evalsha", false) + count("eval", false);
    expect(count("xack", true)).toBe(0);
    const settling = settlingRunIds(runs).length;
    expect(indexCalls).toBeGreaterThanOrEqual(Math.ceil(settling / 7));
    // No run is read in an index call: a run-queued whose append indexed it is not, nor a
    // settled run whose settling append gave it an expiry well ahead (its result's status
    // places it). A call moves its runs in one ZREM from the active runs and one ZADD a
    // settled status (the endings give two: succeeded and failed), and stores a result a run.
    expect(count("hget", true)).toBe(0);
    expect(count("set", true)).toBe(settling);
    expect(count("zrem", true)).toBe(indexCalls);
    expect(count("zadd", true)).toBeLessThanOrEqual(2 * indexCalls);
    expect(count("zadd", true)).toBeLessThan(settling);
    // One entry a run, its step's (its opening, with neither a budget nor a deadline, is quiet),
    // which starts its projection from the run-queued's summary it carries.
    expect(count("xack", false)).toBeGreaterThanOrEqual(TEST_SHARDS);
    // Every result is the fold of its run's entries: no log read.
    expect(count("xrange", false)).toBe(0);
    expect(count("xack", false)).toBeLessThanOrEqual(Math.ceil(runs.length / 7) + TEST_SHARDS);
    const pending = await fx.redis.xpending(keys.shardEvents(0), DEFAULT_COLLECTOR_GROUP);
    expect(pending[0]).toBe(0);
  });
});
