/**
 * The collector and its reaper while Redis is out of memory. A collector
 * starts (its groups exist), reads a batch, and the index call Redis refuses
 * is made again until Redis has room: nothing is dead-lettered, even with
 * one delivery allowed, and every run is collected; the same holds while
 * Redis refuses writes because it cannot persist (`MISCONF`). A reaper pass whose
 * writes are refused settles nothing and throws nothing; the next pass,
 * with room, settles the run past its deadline.
 */
import { shardOfRunId } from "@errand/core/ops";
import { describe, expect } from "vitest";
import { createRunReads } from "../reads/create-run-reads.js";
import { createReaper } from "../reaper/create-reaper.js";
import { redisTest } from "../test-support/engine-test.js";
import { captureLogs } from "../test-support/log-capture.js";
import { exhaustRedisMemory } from "../test-support/redis-memory.js";
import { failRedisSaves } from "../test-support/redis-persistence.js";
import type { LogLine } from "../test-support/worker-processes.js";
import { type CollectorOptions, createCollector } from "./create-collector.js";
import { planRuns, writeRuns } from "./test-support/planned-runs.js";
import { TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

/**
 * Ways Redis refuses writes for a while: `refuse` makes it refuse, and
 * resolves with what ends it; `waiting` knows the log line of the collector
 * waiting it out. Out of memory, its index call is refused; unable to
 * persist, already its read through the group (XREADGROUP writes), which
 * its loop tries again.
 */
const REFUSALS = [
  {
    refusal: "out of memory",
    refuse: exhaustRedisMemory,
    waiting: (line: LogLine) =>
      line.msg === "Redis is out of memory: retrying the write until it has room" &&
      line.write === "indexes and results of a batch",
  },
  {
    refusal: "unable to persist (MISCONF)",
    refuse: failRedisSaves,
    waiting: (line: LogLine) =>
      line.msg === "collector loop error; retrying" &&
      /^MISCONF\b/.test(String((line.err as { message?: unknown } | undefined)?.message)),
  },
];

describe.each(REFUSALS)("the collector while Redis is $refusal", ({ refuse, waiting }) => {
  it("starts, waits to index its batch, and collects every run; nothing is dead-lettered", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("collector-refused");
    const logs = captureLogs();
    const options: CollectorOptions = {
      connection: fx.url,
      prefix: scope.prefix,
      shards: TEST_SHARDS,
      blockMs: 50,
      claimIdleMs: 100,
      maxDeliveries: 1,
      reaper: false,
      logger: logs.logger,
    };
    const first = createCollector(options);
    await first.start(); // creates the groups
    await first.stop();
    const runs = planRuns({
      count: 6,
      shards: TEST_SHARDS,
      seed: "collector-refused",
      endings: ["text"],
    });
    // Each run in one append, opened and settled at once: its indexes are the collector's to
    // write, and its index call's first write is one that Redis refuses out of memory.
    await Promise.all(runs.map((run) => scope.store.appendEvents(run.runId, 0, run.events)));

    const giveBack = await refuse(fx.redis);
    const collector = createCollector(options);
    const reads = createRunReads({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
    try {
      await collector.start();
      await logs.waitFor(waiting);
      await giveBack();
      const batch = await reads.collect(
        runs.map((run) => run.runId),
        { waitMs: 30_000 },
      );
      expect(batch.results.map((result) => result.status)).toEqual(runs.map(() => "succeeded"));
      const metrics = await collector.metrics();
      expect(metrics.shards.map((shard) => shard.deadLettered)).toEqual(
        Array.from({ length: TEST_SHARDS }, () => 0),
      );
      expect(logs.lines.filter((line) => line.msg === "shard entry dead-lettered")).toEqual([]);
    } finally {
      await giveBack();
      await collector.stop();
      await reads.close();
    }
  });
});

describe("the reaper while Redis is out of memory", () => {
  it("passes without settling or throwing, and settles the run past its deadline once Redis has room", async ({
    engineRedis: fx,
  }) => {
    const scope = fx.prefixed("reaper-oom");
    const [run] = planRuns({
      count: 1,
      shards: TEST_SHARDS,
      seed: "reaper-oom",
      endings: ["unsettled"],
      deadlineAt: "2026-01-01T00:00:00.000Z",
    });
    await writeRuns(scope.store, [run!]);
    await fx.redis.zadd(scope.keys.deadlines(shardOfRunId(run!.runId)), 1, run!.runId);
    const reaper = createReaper({
      connection: fx.url,
      prefix: scope.prefix,
      shards: TEST_SHARDS,
      logger: captureLogs().logger,
    });
    const giveBack = await exhaustRedisMemory(fx.redis);
    try {
      expect(await reaper.reapOnce()).toEqual({
        failedJobs: 0,
        deadlineExceeded: 0,
        joblessEnqueued: 0,
        versionUnavailable: 0,
      });
      expect((await scope.store.readLog(run!.runId)).at(-1)?.type).not.toBe("failed");
      await giveBack();
      expect(await reaper.reapOnce()).toMatchObject({ deadlineExceeded: 1 });
    } finally {
      await giveBack();
      await reaper.stop();
    }
    const last = (await scope.store.readLog(run!.runId)).at(-1);
    expect(last).toMatchObject({ type: "failed", data: { code: "deadline_exceeded" } });
  });
});
