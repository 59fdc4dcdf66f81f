/**
 * The append that settles a run: it moves the run between the status indexes
 * under the member its opening wrote, and gives its children their expiry.
 */
import type { NewEvent } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeShardEntry } from "./codec.js";
import type { EventStore } from "./event-store.js";
import { markChecked } from "./new-events.js";
import { runIndexMember } from "./outcomes/index-runs.js";
import { cancelled, failed, finished, queued, started } from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("settling");
});
afterAll(async () => {
  await fx?.stop();
});

/** `queued()` stamped `at` (the test events' own times are in the past). */
function queuedAt(at: string): NewEvent {
  return { ...queued(), at };
}

/** {@link queuedAt}, appended unvalidated (as its writer's word: `markChecked`). */
function checkedQueuedAt(at: string): NewEvent {
  return markChecked(queuedAt(at));
}

/** Opens a run queued at `at` (unvalidated: a day validation refuses included) and settles it with `terminal`; resolves with its settling shard entry. */
async function openAndSettle(runId: string, at: string, terminal: NewEvent) {
  await store.appendEvents(runId, 0, [checkedQueuedAt(at)]);
  await store.appendEvents(runId, 1, [started(), terminal]);
  const shard = shardOfRunId(runId);
  const entries = (await fx.redis.xrange(store.keys.shardEvents(shard), "-", "+")) as [
    string,
    string[],
  ][];
  const own = entries.filter(([, fields]) => fields[1] === runId);
  return decodeShardEntry(shard, own.at(-1)!);
}

describe("the append that settles a run", () => {
  it("moves it from the active runs to its status's under the member its opening wrote, as Date.parse reads its at", async () => {
    const cases: [at: string, terminal: NewEvent, status: "succeeded" | "failed" | "cancelled"][] =
      [
        ["2024-02-29T23:59:59.999Z", finished(), "succeeded"],
        ["1970-01-01T00:00:00.000Z", failed(), "failed"],
        ["2099-12-31T12:34:56.789Z", cancelled("user"), "cancelled"],
        [new Date().toISOString(), finished(), "succeeded"],
      ];
    for (const [at, terminal, status] of cases) {
      const runId = store.newRunId();
      const shard = shardOfRunId(runId);
      const entry = await openAndSettle(runId, at, terminal);
      const member = runIndexMember(at, runId);
      expect(entry.moved, at).toBe(true);
      expect(
        await fx.redis.zscore(store.keys.runIndexByStatus(shard, "active"), member),
      ).toBeNull();
      expect(await fx.redis.zscore(store.keys.runIndexByStatus(shard, status), member), at).toBe(
        "0",
      );
    }
  });

  it("leaves a run whose at has another shape, or names a day Date.parse rolls over, to the collector", async () => {
    for (const at of [
      "2026-12-06T11:17:37.000+01:00",
      "2026-12-06T10:17:37Z",
      "2026-02-30T00:00:00.000Z",
    ]) {
      const runId = store.newRunId();
      const shard = shardOfRunId(runId);
      const entry = await openAndSettle(runId, at, finished());
      expect(entry.moved, at).toBeUndefined();
      expect(entry.expiresAt).toBeGreaterThan(Date.now());
      const member = runIndexMember(at, runId);
      expect(await fx.redis.zscore(store.keys.runIndexByStatus(shard, "active"), member)).toBe("0");
      expect(
        await fx.redis.zscore(store.keys.runIndexByStatus(shard, "succeeded"), member),
      ).toBeNull();
    }
  });
});
