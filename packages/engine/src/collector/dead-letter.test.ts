import { newRunId } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { createEventStore } from "@errand/store";
import { describe, expect } from "vitest";
import { redisTest } from "../test-support/engine-test.js";
import { type CollectorOptions, createCollector } from "./create-collector.js";
import { eventually } from "./test-support/conditions.js";
import {
  expectedIndexedState,
  readIndexedState,
  waitUntilIndexed,
} from "./test-support/indexed-state.js";
import { planRuns, settles, settlingRunIds, writeRuns } from "./test-support/planned-runs.js";
import { type EngineRedisFixture, TEST_SHARDS } from "./test-support/redis-fixture.js";

const it = redisTest;

/** A collector that claims failed entries back after 100 ms, so that they soon run out of deliveries. */
function quickRetryCollector(
  fx: EngineRedisFixture,
  prefix: string,
  options: Required<Pick<CollectorOptions, "batchSize" | "maxDeliveries">>,
) {
  return createCollector({
    connection: fx.url,
    prefix,
    shards: TEST_SHARDS,
    blockMs: 50,
    claimIdleMs: 100,
    reaper: false,
    ...options,
  });
}

describe("poison entries", () => {
  it("go to the shard's dead letters after maxDeliveries, and every entry after them is still collected", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys, store } = fx.prefixed("poison");
    const early = planRuns({ count: 12, shards: TEST_SHARDS, parents: 2, seed: "poison-early" });
    const late = planRuns({ count: 12, shards: TEST_SHARDS, parents: 2, seed: "poison-late" });
    const runs = [...early, ...late];
    const shard = shardOfRunId(early[0]!.runId);
    const stream = keys.shardEvents(shard);

    await writeRuns(store, early);
    const validRunId = early[0]!.runId;
    const at = "2026-03-01T00:00:00.000Z";
    const runOf = (onShard: number, seed: number) =>
      newRunId({ shard: onShard, nowMs: Date.parse(at), random: new Uint8Array(16).fill(seed) });
    const poison: [string, string[]][] = [
      [
        "no runId",
        ["seq", "1", "type", "finished", "at", "2026-03-01T00:00:00.000Z", "data", "{}"],
      ],
      [
        "data not JSON",
        [
          "runId",
          validRunId,
          "seq",
          "99",
          "type",
          "finished",
          "at",
          "2026-03-01T00:00:00.000Z",
          "data",
          "{",
        ],
      ],
      [
        "unknown type",
        [
          "runId",
          validRunId,
          "seq",
          "98",
          "type",
          "exploded",
          "at",
          "2026-03-01T00:00:00.000Z",
          "data",
          "{}",
        ],
      ],
      // A well-formed event of a run id that names no shard.
      [
        "bad run id",
        [
          "runId",
          "not-a-run",
          "seq",
          "1",
          "type",
          "finished",
          "at",
          "2026-03-01T00:00:00.000Z",
          "data",
          "{}",
        ],
      ],
      // Well-formed events of a run of another shard: foreign to this stream.
      [
        "foreign run",
        [
          "runId",
          runOf((shard + 1) % TEST_SHARDS, 1),
          "seq",
          "1",
          "events",
          JSON.stringify([["run-queued", at, { agent: "a" }]]),
        ],
      ],
      // Events are not validated again when read: data the fold cannot take fails when folded…
      [
        "fold refuses",
        [
          "runId",
          runOf(shard, 2),
          "seq",
          "1",
          "events",
          JSON.stringify([["model-responded", at, {}]]),
        ],
      ],
      // … and data the collector's indexing cannot take, when applied.
      [
        "run-queued without limits",
        ["runId", runOf(shard, 3), "seq", "1", "events", JSON.stringify([["run-queued", at, {}]])],
      ],
    ];
    const poisonIds: string[] = [];
    for (const [, fields] of poison) poisonIds.push((await fx.redis.xadd(stream, "*", ...fields))!);
    await writeRuns(store, late);

    const collector = quickRetryCollector(fx, prefix, { batchSize: 5, maxDeliveries: 3 });
    await collector.start();
    try {
      const dead = await eventually("every poison entry dead-lettered", async () => {
        const entries = (await fx.redis.xrange(keys.deadLetters(shard), "-", "+")) as [
          string,
          string[],
        ][];
        return entries.length === poison.length ? entries : undefined;
      });
      const settling = settlingRunIds(runs);
      await waitUntilIndexed(fx.redis, keys, settling, TEST_SHARDS);

      const deadFields = dead.map(([, fields]) => {
        const map = new Map<string, string>();
        for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
        return map;
      });
      expect(deadFields.map((fields) => fields.get("entryId")).sort()).toEqual(
        [...poisonIds].sort(),
      );
      for (const fields of deadFields) {
        expect(fields.get("deliveries")).toBe("3");
        expect(fields.get("error")).not.toBe("");
        const original = poison[poisonIds.indexOf(fields.get("entryId")!)]![1];
        expect(JSON.parse(fields.get("fields")!)).toEqual(original);
      }
      const errorOf = (label: string) =>
        deadFields
          .find(
            (fields) =>
              fields.get("entryId") === poisonIds[poison.findIndex(([name]) => name === label)],
          )
          ?.get("error");
      expect(errorOf("no runId")).toMatch(/^runId: missing/);
      expect(errorOf("bad run id")).toMatch(/^runId: not a run id/);
      expect(errorOf("foreign run")).toMatch(
        /^runId: a run of shard \d+, foreign to the stream of shard/,
      );
      expect(errorOf("fold refuses")).toMatch(/^not folded: /);
      expect(errorOf("run-queued without limits")).not.toMatch(/^not folded/);

      // Everything else, before and after the poison, was collected as usual.
      const state = await readIndexedState(fx.redis, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedIndexedState(store, runs));
      const metrics = await collector.metrics();
      expect(metrics.deadLettered).toBe(poison.length);
      expect(metrics.shards.find((candidate) => candidate.shard === shard)?.deadLettered).toBe(
        poison.length,
      );
      expect(metrics.pending).toBe(0);
    } finally {
      await collector.stop();
    }
  });

  it("fail alone when a run's indexes cannot be written: the other runs of its batches are collected", async ({
    engineRedis: fx,
  }) => {
    const { prefix, keys } = fx.prefixed("broken-head");
    // Kept 30 s, less than the margin past which the collector takes a settled run's head as
    // there without reading it: its index call reads the head, and fails on it.
    const store = createEventStore({
      redis: fx.redis,
      prefix,
      shards: TEST_SHARDS,
      retentionSeconds: 30,
    });
    const runs = planRuns({ count: 16, shards: TEST_SHARDS, seed: "broken-head" });
    const brokenRun = runs.find(settles)!;
    // Queued at a time of another shape than the append reads, its settling append leaves
    // its indexes to the collector, as an older writer's does: the collector reads its head.
    const [opening] = brokenRun.events;
    brokenRun.events[0] = { ...opening!, at: opening!.at.replace("Z", "+00:00") };
    await writeRuns(store, runs);
    const broken = brokenRun.runId;
    // Its head is no longer a HASH: every index call that names it fails in Redis.
    await fx.redis.del(keys.runHead(broken));
    await fx.redis.set(keys.runHead(broken), "not a hash");
    const shard = shardOfRunId(broken);

    const collector = quickRetryCollector(fx, prefix, { batchSize: 50, maxDeliveries: 2 });
    await collector.start();
    try {
      const others = runs.filter((run) => settles(run) && run.runId !== broken);
      await waitUntilIndexed(
        fx.redis,
        keys,
        others.map((run) => run.runId),
        TEST_SHARDS,
      );
      const dead = (await fx.redis.xrange(keys.deadLetters(shard), "-", "+")) as [
        string,
        string[],
      ][];
      const deadRunIds = dead.map(([, fields]) => {
        const original = JSON.parse(fields[fields.indexOf("fields") + 1]!) as string[];
        return original[original.indexOf("runId") + 1];
      });
      // Its entries that were applied with its run-queued or terminal one, nothing of any other run.
      expect(deadRunIds.length).toBeGreaterThanOrEqual(2);
      expect(new Set(deadRunIds)).toEqual(new Set([broken]));
      expect(await fx.redis.get(keys.result(broken))).toBeNull();
      for (const run of others) expect(await fx.redis.exists(keys.result(run.runId))).toBe(1);
    } finally {
      await collector.stop();
    }
  });
});
