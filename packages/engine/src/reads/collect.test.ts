import { isErrandError } from "@errand/core";
import { afterAll, describe, expect } from "vitest";
import { createErrand } from "../client/client.js";
import { indexPlanned, startTestCollector } from "../collector/test-support/index-planned.js";
import { type PlannedRun, planRuns } from "../collector/test-support/planned-runs.js";
import {
  type EngineRedisFixture,
  type PrefixedStore,
  TEST_SHARDS,
} from "../collector/test-support/redis-fixture.js";
import { redisTest } from "../test-support/engine-test.js";
import { createRunReads, type RunReads } from "./create-run-reads.js";

const it = redisTest;

let scope: PrefixedStore;
let reads: RunReads;
/** One run of each ending: text, output, failed, cancelled, no-output, unsettled. */
let runs: PlannedRun[];

it.beforeAll(async ({ engineRedis: fx }) => {
  scope = fx.prefixed("reads-collect");
  reads = createRunReads({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
  runs = planRuns({ count: 6, shards: TEST_SHARDS, seed: "collect-mixed" });
  await indexPlanned(fx, scope, runs);
});
afterAll(async () => {
  await reads?.close();
});

const idOf = (ending: PlannedRun["ending"]) => runs.find((run) => run.ending === ending)!.runId;

describe("collect", () => {
  it("reports each run in the order given, successes beside failures, with counts", async () => {
    const [unknown] = planRuns({ count: 1, shards: TEST_SHARDS, seed: "collect-unknown" });
    const ids = [
      idOf("unsettled"),
      idOf("text"),
      idOf("failed"),
      idOf("output"),
      unknown!.runId,
      idOf("cancelled"),
      idOf("no-output"),
      "nope",
    ];
    const batch = await reads.collect(ids);
    expect(batch.results.map((result) => result.runId)).toEqual(ids);
    expect(batch.results).toEqual([
      {
        runId: ids[0],
        ok: false,
        status: "pending",
        error: { code: "pending", message: expect.any(String) },
        retryable: true,
      },
      {
        runId: ids[1],
        ok: true,
        status: "succeeded",
        text: `answer ${runs.findIndex((run) => run.runId === ids[1])}`,
      },
      {
        runId: ids[2],
        ok: false,
        status: "failed",
        error: { code: "model_error", message: "model down" },
        retryable: true,
      },
      { runId: ids[3], ok: true, status: "succeeded", output: { answer: "1" } },
      {
        runId: ids[4],
        ok: false,
        status: "not_found",
        error: { code: "not_found", message: expect.stringContaining(ids[4]!) },
        retryable: false,
      },
      {
        runId: ids[5],
        ok: false,
        status: "cancelled",
        error: { code: "cancelled", message: expect.any(String) },
        retryable: false,
      },
      {
        runId: ids[6],
        ok: false,
        status: "failed",
        text: "forgot the tool",
        error: { code: "no_structured_output", message: expect.any(String) },
        retryable: false,
      },
      {
        runId: "nope",
        ok: false,
        status: "not_found",
        error: { code: "not_found", message: expect.stringContaining("not a run id") },
        retryable: false,
      },
    ]);
    expect(batch).toMatchObject({
      total: 8,
      succeeded: 2,
      failed: 4,
      cancelled: 1,
      pending: 1,
      hasMore: false,
    });
    expect(batch.nextCursor).toBeUndefined();
    expect(batch.nextAction).toEqual({
      tool: "collect_agents",
      args: { runIds: [ids[0]], wait: true },
    });
  });

  it("pages with a cursor, and points to the next page or to what is still pending", async () => {
    const ids = [
      idOf("text"),
      idOf("output"),
      idOf("failed"),
      idOf("unsettled"),
      idOf("cancelled"),
    ];
    const first = await reads.collect(ids, { limit: 2 });
    expect(first.results.map((result) => result.runId)).toEqual(ids.slice(0, 2));
    expect(first.hasMore).toBe(true);
    expect(first.nextAction).toEqual({
      tool: "collect_agents",
      args: { runIds: ids, cursor: first.nextCursor },
    });

    const second = await reads.collect(ids, { limit: 2, cursor: first.nextCursor! });
    expect(second.results.map((result) => result.runId)).toEqual(ids.slice(2, 4));
    expect(second.pending).toBe(1);
    // A pending run on this page and runs after it: collect those, pending first.
    expect(second.nextAction).toEqual({
      tool: "collect_agents",
      args: { runIds: [idOf("unsettled"), idOf("cancelled")] },
    });

    const third = await reads.collect(ids, { limit: 2, cursor: second.nextCursor! });
    expect(third.results.map((result) => result.runId)).toEqual(ids.slice(4));
    expect(third.hasMore).toBe(false);
    expect(third.nextCursor).toBeUndefined();
    expect(third.nextAction).toBeUndefined();
  });

  it("refuses a cursor of another list and a limit that is not a whole number from 1", async () => {
    const ids = [idOf("text"), idOf("output"), idOf("failed")];
    const { nextCursor } = await reads.collect(ids, { limit: 1 });
    const foreign = await reads
      .collect([idOf("failed"), idOf("text")], { cursor: nextCursor! })
      .catch((error: unknown) => error);
    expect(isErrandError(foreign, "invalid_spec")).toBe(true);
    const zero = await reads.collect(ids, { limit: 0 }).catch((error: unknown) => error);
    expect(isErrandError(zero, "invalid_spec")).toBe(true);
  });

  it("waits until every run of the page has settled", async ({ engineRedis: fx }) => {
    const waitingRuns = planRuns({
      count: 3,
      shards: TEST_SHARDS,
      seed: "collect-wait",
      endings: ["text", "failed", "cancelled"],
    });
    const lastIndexes = waitingRuns.map((run) => run.events.length - 1);
    await indexPlanned(fx, scope, waitingRuns, { upTo: Math.min(...lastIndexes) });
    const ids = waitingRuns.map((run) => run.runId);
    expect((await reads.collect(ids)).pending).toBe(3);

    const collector = await startTestCollector(fx, scope);
    try {
      const waiting = reads.collect(ids, { waitMs: 30_000 });
      for (const run of waitingRuns) {
        const written = Math.min(...lastIndexes);
        for (let index = written; index < run.events.length; index += 1) {
          await scope.store.appendEvents(run.runId, index, [run.events[index]!]);
        }
      }
      const batch = await waiting;
      expect(batch).toMatchObject({ total: 3, succeeded: 1, failed: 1, cancelled: 1, pending: 0 });
      expect(batch.nextAction).toBeUndefined();
    } finally {
      await collector.stop();
    }
  });
});

describe("collect on a client that auto-pipelines", () => {
  it("answers beside other reads sent in the same tick, from its very first call", async ({
    engineRedis: fx,
  }) => {
    // ioredis puts a tick's commands in one pipeline, which carries only the scripts defined before it was made.
    const errand = createErrand({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
    try {
      const ids = [idOf("text"), idOf("unsettled")];
      const [listed, batch] = await Promise.all([errand.list(), errand.collect(ids)]);
      expect(listed.count).toBeGreaterThan(0);
      expect(batch).toMatchObject({ total: 2, succeeded: 1, pending: 1 });
    } finally {
      await errand.close();
    }
  });
});

/** The GET calls the server has served so far. */
async function getCalls(fx: EngineRedisFixture): Promise<number> {
  const stats = await fx.redis.info("commandstats");
  return Number(/cmdstat_get:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe("collect waiting on many runs", () => {
  it("reads each run's result about once, not the whole page again at each announcement", async ({
    engineRedis: fx,
  }) => {
    const count = 40;
    const waitingRuns = planRuns({
      count,
      shards: TEST_SHARDS,
      seed: "collect-many",
      endings: ["text"],
    });
    const last = waitingRuns[0]!.events.length - 1;
    await indexPlanned(fx, scope, waitingRuns, { upTo: last });
    const ids = waitingRuns.map((run) => run.runId);
    const collector = await startTestCollector(fx, scope);
    try {
      const before = await getCalls(fx);
      const waiting = reads.collect(ids, { waitMs: 30_000, limit: count });
      for (const run of waitingRuns) {
        await scope.store.appendEvents(run.runId, last, [run.events[last]!]);
        await reads.result(run.runId, { waitMs: 30_000 });
      }
      const batch = await waiting;
      expect(batch).toMatchObject({ total: count, succeeded: count, pending: 0 });
      // Per run: collect's first read and its read once announced, the collector's own look,
      // and the few reads of each result() above — about 6. Reading the whole page again at
      // each announcement costs about count / 2 per run more (≈ 45 here).
      expect((await getCalls(fx)) - before).toBeLessThanOrEqual(8 * count);
    } finally {
      await collector.stop();
    }
  });
});
