import type { NewEvent } from "@errand/core";
import { afterAll, describe, expect } from "vitest";
import { indexPlanned, startTestCollector } from "../collector/test-support/index-planned.js";
import { waitUntilIndexed } from "../collector/test-support/indexed-state.js";
import { type PlannedRun, planRuns, writeRuns } from "../collector/test-support/planned-runs.js";
import {
  type EngineRedisFixture,
  type PrefixedStore,
  TEST_SHARDS,
} from "../collector/test-support/redis-fixture.js";
import { redisTest } from "../test-support/engine-test.js";
import type { CollectResult } from "./collect.js";
import type { CollectedStatus } from "./collected-run.js";
import { type CountedReads, countedReads } from "./test-support/counted-reads.js";

const it = redisTest;

let scope: PrefixedStore;
let counted: CountedReads;

it.beforeAll(async ({ engineRedis: fx }) => {
  scope = fx.prefixed("reads-collect-counts");
  counted = await countedReads(fx, scope);
});
afterAll(async () => {
  await counted?.close();
});

const STATUS_OF_ENDING: Record<PlannedRun["ending"], CollectedStatus> = {
  text: "succeeded",
  output: "succeeded",
  failed: "failed",
  cancelled: "cancelled",
  "no-output": "failed",
  unsettled: "pending",
};

/** The terminal event that settles a planned run left `unsettled`. */
function finishedEvent(run: PlannedRun): NewEvent {
  return { type: "finished", at: new Date().toISOString(), data: { text: `late ${run.runId}` } };
}

/** Appends `finished` to each of `runs` (left unsettled) and waits until a collector stored their results. */
async function settleLate(fx: EngineRedisFixture, runs: readonly PlannedRun[]): Promise<void> {
  for (const run of runs) {
    await scope.store.appendEvents(run.runId, run.events.length, [finishedEvent(run)]);
  }
  await waitUntilIndexed(
    fx.redis,
    scope.keys,
    runs.map((run) => run.runId),
    TEST_SHARDS,
  );
}

/** The counts `collect` reports for runs whose statuses are `statuses`. */
function countsOf(statuses: readonly CollectedStatus[]) {
  const of = (...wanted: CollectedStatus[]) =>
    statuses.filter((status) => wanted.includes(status)).length;
  return {
    total: statuses.length,
    succeeded: of("succeeded"),
    failed: of("failed", "not_found"),
    cancelled: of("cancelled"),
    pending: of("pending"),
  };
}

/** Every page of `ids` by 50, each with the round trips and commands it cost. */
async function pagesOf(ids: readonly string[]) {
  const pages: { page: CollectResult; roundTrips: number; commands: number }[] = [];
  let cursor: string | undefined;
  do {
    counted.take();
    const page = await counted.reads.collect(ids, {
      limit: 50,
      ...(cursor === undefined ? {} : { cursor }),
    });
    pages.push({ page, ...counted.take() });
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("collect's counts", () => {
  it("are those of every run given, the same on each page, read with the page in one round trip, and follow the runs as they settle", async ({
    engineRedis: fx,
  }) => {
    // 118 runs: 20 text, 20 output, 20 failed, 20 cancelled, 19 without output, 19 unsettled.
    const runs = planRuns({ count: 118, shards: TEST_SHARDS, seed: "counts" });
    await indexPlanned(fx, scope, runs);
    const [unknown] = planRuns({ count: 1, shards: TEST_SHARDS, seed: "counts-unknown" });
    const ids = runs.map((run) => run.runId);
    ids.splice(30, 0, unknown!.runId);
    ids.splice(75, 0, "nope");
    const statusOf = new Map<string, CollectedStatus>(
      runs.map((run) => [run.runId, STATUS_OF_ENDING[run.ending]]),
    );
    const expectedStatuses = () => ids.map((runId) => statusOf.get(runId) ?? "not_found");

    const expectPages = async () => {
      const expected = countsOf(expectedStatuses());
      const pages = await pagesOf(ids);
      expect(pages.map(({ page }) => page.count)).toEqual([50, 50, 20]);
      pages.forEach(({ page, roundTrips, commands }, index) => {
        expect(page).toMatchObject(expected);
        const pageIds = ids.slice(index * 50, index * 50 + 50);
        expect(page.results.map((run) => run.runId)).toEqual(pageIds);
        expect(page.results.map((run) => run.status)).toEqual(
          pageIds.map((runId) => statusOf.get(runId) ?? "not_found"),
        );
        // One round trip: a script call per shard, which reads the page's results with the counts.
        expect(roundTrips).toBe(1);
        expect(commands).toBe(TEST_SHARDS);
      });
      return expected;
    };

    const before = await expectPages();
    expect(before).toEqual({ total: 120, succeeded: 40, failed: 41, cancelled: 20, pending: 19 });

    const unsettled = runs.filter((run) => run.ending === "unsettled");
    const collector = await startTestCollector(fx, scope);
    try {
      await settleLate(fx, unsettled);
    } finally {
      await collector.stop();
    }
    for (const run of unsettled) statusOf.set(run.runId, "succeeded");
    const after = await expectPages();
    expect(after).toEqual({ total: 120, succeeded: 59, failed: 41, cancelled: 20, pending: 0 });
  });

  it("after waiting for its page, count the runs elsewhere in the list that settled meanwhile", async ({
    engineRedis: fx,
  }) => {
    // Runs 0, 2, 4, … settled; 1, 3, 5, … still running. The page (limit 4) holds 1 and 3.
    const runs = planRuns({
      count: 12,
      shards: TEST_SHARDS,
      seed: "counts-wait",
      endings: ["text", "unsettled"],
    });
    await indexPlanned(fx, scope, runs);
    const ids = runs.map((run) => run.runId);
    const unsettled = runs.filter((run) => run.ending === "unsettled");
    const onPage = unsettled.filter((run) => ids.indexOf(run.runId) < 4);
    const elsewhere = unsettled.filter((run) => ids.indexOf(run.runId) >= 4);

    const collector = await startTestCollector(fx, scope);
    try {
      counted.take();
      const waiting = counted.reads.collect(ids, { limit: 4, waitMs: 30_000 });
      // Its first read (a script call per shard, which reads the page's results too) is answered before anything settles.
      await counted.untilAnswered(TEST_SHARDS);
      await settleLate(fx, elsewhere);
      await settleLate(fx, onPage);
      const page = await waiting;
      expect(page).toMatchObject({
        total: 12,
        succeeded: 12,
        failed: 0,
        cancelled: 0,
        pending: 0,
        count: 4,
        hasMore: true,
      });
      expect(page.results.map((run) => run.status)).toEqual(Array(4).fill("succeeded"));
    } finally {
      await collector.stop();
    }
  });

  it("count a run whose head expired before its result as its result says, reading that result once more", async ({
    engineRedis: fx,
  }) => {
    const runs = planRuns({
      count: 3,
      shards: TEST_SHARDS,
      seed: "counts-headless",
      endings: ["text", "failed", "cancelled"],
    });
    await indexPlanned(fx, scope, runs);
    const ids = runs.map((run) => run.runId);
    // The failed run, off the page, keeps its result a moment after its head expired.
    await fx.redis.del(scope.keys.runHead(ids[1]!));

    counted.take();
    const page = await counted.reads.collect(ids, { limit: 1 });
    expect(page).toMatchObject({ total: 3, succeeded: 1, failed: 1, cancelled: 1, pending: 0 });
    expect(counted.take().roundTrips).toBe(2);
  });

  it("over more than 1,000 runs of one shard, split that shard's reads and still answer in one round trip", async () => {
    const runs = planRuns({
      count: 1_001,
      shards: 1,
      seed: "counts-one-shard",
      endings: ["unsettled"],
    });
    await writeRuns(scope.store, runs, { upTo: 1 });
    const ids = runs.map((run) => run.runId);

    counted.take();
    const page = await counted.reads.collect(ids, { limit: 1 });
    expect(page).toMatchObject({ total: 1_001, pending: 1_001, count: 1 });
    // Two script calls (1,000 runs, then 1; the page's run read in full in the first), sent together.
    expect(counted.take()).toEqual({ roundTrips: 1, commands: 2 });
  });
});
