import { foldRun, isErrandError } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { afterAll, describe, expect } from "vitest";
import { indexPlanned } from "../collector/test-support/index-planned.js";
import { type PlannedRun, planRuns } from "../collector/test-support/planned-runs.js";
import { type PrefixedStore, TEST_SHARDS } from "../collector/test-support/redis-fixture.js";
import { redisTest } from "../test-support/engine-test.js";
import { createRunReads, type RunReads } from "./create-run-reads.js";
import type { ListOptions, RunSummary } from "./list.js";

const it = redisTest;

let scope: PrefixedStore;
let reads: RunReads;
let runs: PlannedRun[];

it.beforeAll(async ({ engineRedis: fx }) => {
  scope = fx.prefixed("reads-list");
  reads = createRunReads({ connection: fx.url, prefix: scope.prefix, shards: TEST_SHARDS });
  runs = planRuns({ count: 30, shards: TEST_SHARDS, parents: 3, seed: "list" });
  const queuedOnly = planRuns({ count: 3, shards: TEST_SHARDS, seed: "list-queued" });
  await indexPlanned(fx, scope, runs);
  await indexPlanned(fx, scope, queuedOnly, { upTo: 1 });
  runs.push(...queuedOnly);
});
afterAll(async () => {
  await reads?.close();
});

function shardOf(run: PlannedRun): number {
  return shardOfRunId(run.runId);
}

/** The summaries of `planned` as their logs say, newest first. */
async function expectedSummaries(
  store: PrefixedStore["store"],
  planned: readonly PlannedRun[],
): Promise<RunSummary[]> {
  const summaries = await Promise.all(
    planned.map(async (run): Promise<RunSummary> => {
      const state = foldRun(await store.readLog(run.runId), run.runId);
      const queued = state.queued!;
      return {
        runId: run.runId,
        agent: queued.agent,
        status: state.status as RunSummary["status"],
        ...(queued.parentRunId === undefined ? {} : { parentRunId: queued.parentRunId }),
        rootRunId: queued.rootRunId,
        createdAt: state.createdAt!,
        ...(state.settledAt === undefined ? {} : { settledAt: state.settledAt }),
        ...(state.error === undefined ? {} : { error: { code: state.error.code } }),
      };
    }),
  );
  const key = (summary: RunSummary) => `${Date.parse(summary.createdAt)}:${summary.runId}`;
  return summaries.sort((a, b) => (key(a) < key(b) ? 1 : -1));
}

/** Every page of `list(options)` with `limit`, concatenated, and the pages' sizes. */
async function allPages(options: ListOptions, limit: number) {
  const items: RunSummary[] = [];
  const counts: number[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await reads.list({
      ...options,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    items.push(...page.items);
    counts.push(page.count);
    if (!page.hasMore) return { items, counts, lastCursor: page.nextCursor };
    cursor = page.nextCursor;
  }
}

describe("list", () => {
  it("lists run summaries newest first, as the runs' logs say", async () => {
    const page = await reads.list({ limit: 500 });
    expect(page.items).toEqual(await expectedSummaries(scope.store, runs));
    expect(page).toMatchObject({ count: runs.length, hasMore: false });
    expect(page.items.map((item) => item.status)).toEqual(
      expect.arrayContaining(["queued", "running", "succeeded", "failed", "cancelled"]),
    );
  });

  it("pages through every run with cursors, each run once", async () => {
    const { items, counts, lastCursor } = await allPages({}, 7);
    expect(items).toEqual(await expectedSummaries(scope.store, runs));
    expect(counts).toEqual([7, 7, 7, 7, 5]);
    expect(lastCursor).toBeUndefined();
    expect((await reads.list()).count).toBe(runs.length);
  });

  it.for<[string, ListOptions, (summary: RunSummary) => boolean]>([
    ["succeeded", { status: "succeeded" }, (s) => s.status === "succeeded"],
    ["failed", { status: "failed" }, (s) => s.status === "failed"],
    ["cancelled", { status: "cancelled" }, (s) => s.status === "cancelled"],
    ["running", { status: "running" }, (s) => s.status === "running"],
    ["queued", { status: "queued" }, (s) => s.status === "queued"],
    ["by agent", { agent: "writer" }, (s) => s.agent === "writer"],
    ["children of a parent", { parentRunId: "" }, () => true],
    [
      "agent and status",
      { agent: "researcher", status: "failed" },
      (s) => s.agent === "researcher" && s.status === "failed",
    ],
  ])("filters: %s", async ([_name, filter, keep]) => {
    const parent = runs[1]!.runId;
    const options = filter.parentRunId === undefined ? filter : { ...filter, parentRunId: parent };
    const expected = (await expectedSummaries(scope.store, runs)).filter(
      (summary) =>
        keep(summary) && (options.parentRunId === undefined || summary.parentRunId === parent),
    );
    expect(expected.length).toBeGreaterThan(0);
    const { items } = await allPages(options, 3);
    expect(items).toEqual(expected);
  });

  it("keeps its cursors stable while newer runs arrive", async ({ engineRedis: fx }) => {
    const growing = fx.prefixed("reads-list-growing");
    const growingReads = createRunReads({
      connection: fx.url,
      prefix: growing.prefix,
      shards: TEST_SHARDS,
    });
    try {
      const planned = planRuns({ count: 20, shards: TEST_SHARDS, seed: "list-growing" });
      const older = planned.slice(0, 12);
      await indexPlanned(fx, growing, older);
      const expectedOlder = await expectedSummaries(growing.store, older);
      const first = await growingReads.list({ limit: 5 });
      expect(first.items).toEqual(expectedOlder.slice(0, 5));

      await indexPlanned(fx, growing, planned.slice(12));
      const second = await growingReads.list({ limit: 5, cursor: first.nextCursor! });
      expect(second.items).toEqual(expectedOlder.slice(5, 10));
      const fresh = await growingReads.list({ limit: 8 });
      expect(fresh.items).toEqual((await expectedSummaries(growing.store, planned)).slice(0, 8));
      expect(
        fresh.items.every((item) => planned.slice(12).some((run) => run.runId === item.runId)),
      ).toBe(true);
    } finally {
      await growingReads.close();
    }
  });

  it("drops a run whose log expired, from the page and from the index", async ({
    engineRedis: fx,
  }) => {
    const expiring = fx.prefixed("reads-list-expiring");
    const expiringReads = createRunReads({
      connection: fx.url,
      prefix: expiring.prefix,
      shards: TEST_SHARDS,
    });
    try {
      const planned = planRuns({ count: 6, shards: TEST_SHARDS, seed: "list-expiring" });
      await indexPlanned(fx, expiring, planned);
      const gone = planned[3]!;
      await fx.redis.del(expiring.keys.runHead(gone.runId), expiring.keys.runLog(gone.runId));
      const page = await expiringReads.list({ limit: 5 });
      expect(page.items.map((item) => item.runId)).toEqual(
        planned
          .filter((run) => run !== gone)
          .map((run) => run.runId)
          .reverse(),
      );
      expect(page.hasMore).toBe(false);
      const shardIndexes = Array.from({ length: TEST_SHARDS }, (_, shard) =>
        (["active", "succeeded", "failed", "cancelled"] as const).map((status) =>
          expiring.keys.runIndexByStatus(shard, status),
        ),
      ).flat();
      const remaining = await Promise.all(shardIndexes.map((key) => fx.redis.zrange(key, 0, -1)));
      expect(remaining.flat().some((member) => member.endsWith(gone.runId))).toBe(false);
      expect(remaining.flat()).toHaveLength(5);
    } finally {
      await expiringReads.close();
    }
  });

  it("lists a run found in two status indexes (read while it moves) once, on every page size", async ({
    engineRedis: fx,
  }) => {
    const { keys } = scope;
    const settled = runs.find((run) => run.events.length > 1)!;
    const moving = (
      await fx.redis.zrange(keys.runIndexByStatus(shardOf(settled), "succeeded"), 0, -1)
    )
      .concat(await fx.redis.zrange(keys.runIndexByStatus(shardOf(settled), "failed"), 0, -1))
      .concat(await fx.redis.zrange(keys.runIndexByStatus(shardOf(settled), "cancelled"), 0, -1))
      .find((member) => member.endsWith(settled.runId))!;
    const active = keys.runIndexByStatus(shardOf(settled), "active");
    await fx.redis.zadd(active, 0, moving);
    try {
      const expected = (await expectedSummaries(scope.store, runs)).map((item) => item.runId);
      for (const limit of [1, 4, 500]) {
        expect((await allPages({}, limit)).items.map((item) => item.runId)).toEqual(expected);
      }
    } finally {
      await fx.redis.zrem(active, moving);
    }
  });

  it("refuses an unknown status, a malformed parentRunId and a foreign cursor", async () => {
    for (const options of [
      { status: "lost" as RunSummary["status"] },
      { parentRunId: "nope" },
      { cursor: "bm90IGEgY3Vyc29y" },
      { limit: -1 },
    ]) {
      const error = await reads.list(options).catch((caught: unknown) => caught);
      expect(isErrandError(error, "invalid_spec")).toBe(true);
    }
  });
});
