import { foldRun, isErrandError, settleRun } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { afterAll, describe, expect } from "vitest";
import { indexPlanned, startTestCollector } from "../collector/test-support/index-planned.js";
import { planRuns } from "../collector/test-support/planned-runs.js";
import {
  type EngineRedisFixture,
  type PrefixedStore,
  TEST_SHARDS,
} from "../collector/test-support/redis-fixture.js";
import { engineKeys } from "../engine-keys.js";
import { redisTest } from "../test-support/engine-test.js";
import { createRunReads, type RunReads } from "./create-run-reads.js";

const it = redisTest;

let scope: PrefixedStore;
let reads: RunReads;

it.beforeAll(async ({ engineRedis: fx }) => {
  scope = fx.prefixed("reads-result");
  reads = createRunReads({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
});
afterAll(async () => {
  await reads?.close();
});

async function getCalls(fx: EngineRedisFixture): Promise<number> {
  const info = await fx.redis.info("commandstats");
  return Number(/^cmdstat_get:calls=(\d+)/m.exec(info)?.[1] ?? 0);
}

describe("result", () => {
  it("returns the stored RunResult of a settled run, the fold of its log", async ({
    engineRedis: fx,
  }) => {
    const runs = planRuns({ count: 5, shards: TEST_SHARDS, seed: "result-settled" });
    await indexPlanned(fx, scope, runs);
    for (const run of runs.slice(0, 5)) {
      const expected = settleRun(foldRun(await scope.store.readLog(run.runId), run.runId));
      expect(await reads.result(run.runId)).toEqual(expected);
    }
  });

  it("answers undefined at once for a run that has not settled, and refuses unknown and malformed run ids", async ({
    engineRedis: fx,
  }) => {
    const [pending] = planRuns({
      count: 1,
      shards: TEST_SHARDS,
      seed: "result-pending",
      endings: ["unsettled"],
    });
    await indexPlanned(fx, scope, [pending!]);
    expect(await reads.result(pending!.runId)).toBeUndefined();

    const [never] = planRuns({ count: 1, shards: TEST_SHARDS, seed: "result-never" });
    const unknown = await reads.result(never!.runId).catch((error: unknown) => error);
    expect(isErrandError(unknown, "not_found")).toBe(true);
    const malformed = await reads.result("not-a-run").catch((error: unknown) => error);
    expect(isErrandError(malformed, "invalid_spec")).toBe(true);
  });

  it("waits for the run to settle, woken by the collector, not by polling", async ({
    engineRedis: fx,
  }) => {
    const [run] = planRuns({
      count: 1,
      shards: TEST_SHARDS,
      seed: "result-wait",
      endings: ["text"],
    });
    const lastIndex = run!.events.length - 1;
    await indexPlanned(fx, scope, [run!], { upTo: lastIndex });

    // Nothing settles it: the wait ends at waitMs having read only a few times.
    const before = await getCalls(fx);
    expect(await reads.result(run!.runId, { waitMs: 400 })).toBeUndefined();
    expect((await getCalls(fx)) - before).toBeLessThanOrEqual(3);

    // The terminal event arrives while the client waits: the collector's notification wakes it.
    const collector = await startTestCollector(fx, scope);
    try {
      const waiting = reads.result(run!.runId, { waitMs: 30_000 });
      await scope.store.appendEvents(run!.runId, lastIndex, [run!.events[lastIndex]!]);
      const result = await waiting;
      expect(result).toMatchObject({ runId: run!.runId, status: "succeeded" });
      expect(result).toEqual(settleRun(foldRun(await scope.store.readLog(run!.runId))));
    } finally {
      await collector.stop();
    }
  });

  it("keeps the run's shard channel subscribed after a wait, for the next, and refuses an unknown run at once even when waiting", async ({
    engineRedis: fx,
  }) => {
    const [pending] = planRuns({
      count: 1,
      shards: TEST_SHARDS,
      seed: "result-linger",
      endings: ["unsettled"],
    });
    await indexPlanned(fx, scope, [pending!]);
    const channel = engineKeys(scope.prefix).settledChannel(shardOfRunId(pending!.runId));
    expect(await reads.result(pending!.runId, { waitMs: 50 })).toBeUndefined();
    // No wait is running, yet the channel is still subscribed: the next wait on the shard needs no SUBSCRIBE.
    expect((await fx.redis.pubsub("NUMSUB", channel))[1]).toBe(1);

    // The one read a wait makes tells that the run does not exist: no wait of ten minutes.
    const [never] = planRuns({ count: 1, shards: TEST_SHARDS, seed: "result-linger-never" });
    const unknown = await reads.result(never!.runId, { waitMs: 600_000 }).catch((error) => error);
    expect(isErrandError(unknown, "not_found")).toBe(true);
  });
});
