/**
 * The append that settles a run: it leaves the run's move between the status
 * indexes to the collector, and gives the run's blobs and children their
 * expiry only when its head flags them
 * (docs/architecture/redis-layout.md#upgrading-to-flagged-blobs-and-children).
 */
import type { NewEvent } from "@errand/core";
import { markChecked, shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeShardEntry } from "./codec.js";
import type { EventStore, RunKeyExpiry } from "./event-store.js";
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
  it("leaves the run in the active runs for the collector to move, and says it gave the run's children their expiry", async () => {
    const cases: [at: string, terminal: NewEvent][] = [
      ["2024-02-29T23:59:59.999Z", finished()],
      ["1970-01-01T00:00:00.000Z", failed()],
      ["2099-12-31T12:34:56.789Z", cancelled("user")],
      [new Date().toISOString(), finished()],
    ];
    for (const [at, terminal] of cases) {
      const runId = store.newRunId();
      const shard = shardOfRunId(runId);
      const entry = await openAndSettle(runId, at, terminal);
      expect(entry.moved, at).toBeUndefined();
      expect(entry.childrenExpired, at).toBe(true);
      expect(entry.expiresAt).toBeGreaterThan(Date.now());
      const member = runIndexMember(at, runId);
      expect(await fx.redis.zscore(store.keys.runIndexByStatus(shard, "active"), member)).toBe("0");
      for (const status of ["succeeded", "failed", "cancelled"] as const) {
        expect(await fx.redis.exists(store.keys.runIndexByStatus(shard, status)), at).toBe(0);
      }
    }
  });

  it("trusts no flag of a run whose at has another shape, or names a day Date.parse rolls over: its children get their expiry", async () => {
    for (const at of [
      "2026-12-06T11:17:37.000+01:00",
      "2026-12-06T10:17:37Z",
      "2026-02-30T00:00:00.000Z",
    ]) {
      const runId = store.newRunId();
      await store.appendEvents(runId, 0, [checkedQueuedAt(at)]);
      // A child linked without its flag, as a process older than the flags links one.
      await fx.redis.zadd(store.keys.children(runId), 0, "child");
      await store.appendEvents(runId, 1, [started(), finished()]);
      const expiresAt = await fx.redis.pexpiretime(store.keys.runHead(runId));
      expect(expiresAt, at).toBeGreaterThan(Date.now());
      expect(await fx.redis.pexpiretime(store.keys.children(runId)), at).toBe(expiresAt);
    }
  });

  it("gives blobs and children their expiry only when the head flags them, for a run created since the store was", async () => {
    const now = () => new Date().toISOString();
    // Unflagged keys, as a process older than the flags writes them.
    const unflagged = store.newRunId();
    await store.appendEvents(unflagged, 0, [queuedAt(now())]);
    await fx.redis.hset(store.keys.runBlobs(unflagged), "count", "1");
    await fx.redis.zadd(store.keys.children(unflagged), 0, "child");
    await store.appendEvents(unflagged, 1, [started(), finished()]);
    expect(await fx.redis.pttl(store.keys.runBlobs(unflagged))).toBe(-1);
    expect(await fx.redis.pttl(store.keys.children(unflagged))).toBe(-1);

    // Flagged: a blob stored through the store, a child linked with its flag.
    const flagged = store.newRunId();
    await store.appendEvents(flagged, 0, [queuedAt(now())]);
    await store.putBlob(flagged, "a large value", "text/plain");
    expect(await fx.redis.hget(store.keys.runHead(flagged), "hasBlobs")).toBe("1");
    await fx.redis.hset(store.keys.runHead(flagged), "hasChildren", "1");
    await fx.redis.zadd(store.keys.children(flagged), 0, "child");
    expect((await store.readHead(flagged))?.hasChildren).toBe(true);
    await store.appendEvents(flagged, 1, [started(), finished()]);
    const expiresAt = await fx.redis.pexpiretime(store.keys.runHead(flagged));
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(await fx.redis.pexpiretime(store.keys.runBlobs(flagged))).toBe(expiresAt);
    expect(await fx.redis.pexpiretime(store.keys.children(flagged))).toBe(expiresAt);
  });

  it("gives every key its expiry for a run created before the store was, and with runKeyExpiry all", async () => {
    expect(() => fx.store("settling", { runKeyExpiry: "some" as RunKeyExpiry })).toThrow(
      /runKeyExpiry must be "all" or "flagged"/,
    );
    const everyKey = fx.store("settling", { runKeyExpiry: "all" });
    const older = store.newRunId();
    const recent = store.newRunId();
    for (const [writer, runId, at] of [
      [store, older, new Date(Date.now() - 60_000).toISOString()],
      [everyKey, recent, new Date().toISOString()],
    ] as const) {
      await writer.appendEvents(runId, 0, [queuedAt(at)]);
      const { keys } = writer;
      await fx.redis.hset(keys.runBlobs(runId), "count", "1");
      await fx.redis.zadd(keys.children(runId), 0, "child");
      await writer.appendEvents(runId, 1, [started(), finished()]);
      const expiresAt = await fx.redis.pexpiretime(keys.runHead(runId));
      expect(expiresAt).toBeGreaterThan(Date.now());
      expect(await fx.redis.pexpiretime(keys.runBlobs(runId))).toBe(expiresAt);
      expect(await fx.redis.pexpiretime(keys.children(runId))).toBe(expiresAt);
    }
  });
});
