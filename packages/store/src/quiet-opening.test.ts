import { shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ShardEntry } from "./codec.js";
import type { EventStore } from "./event-store.js";
import {
  cancelled,
  cancelRequested,
  modelResponded,
  queued,
  queuedLoudly,
  started,
} from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("quiet-opening");
});
afterAll(async () => {
  await fx?.stop();
});

/** The run's entries of its shard stream, decoded (every test's entries fit in one read). */
async function shardEntriesOf(runId: string): Promise<ShardEntry[]> {
  const entries = await store.readShard(shardOfRunId(runId), { count: 10_000 });
  return entries.filter((entry) => entry.runId === runId);
}

/** Each entry's first seq and its summary's presence. */
function seqsAndSummaries(entries: readonly ShardEntry[]): [number, boolean][] {
  return entries.map((entry) => [entry.events?.[0]?.seq ?? 0, entry.queued !== undefined]);
}

describe("a quiet opening", () => {
  it("writes no shard entry for a run with neither a budget nor a deadline; its worker's first append summarises its run-queued, once", async () => {
    const runId = store.newRunId();
    const [opening] = await store.appendEvents(runId, 0, [queued()]);
    expect(await shardEntriesOf(runId)).toEqual([]);
    expect(await fx.redis.hget(store.keys.runHead(runId), "quietOpening")).toBe("1");
    // Indexed as queued all the same.
    expect(await store.readHead(runId)).toMatchObject({ status: "queued", seq: 1 });

    await store.appendEvents(runId, 1, [started(1)]);
    await store.appendEvents(runId, 2, [modelResponded(1)]);
    const entries = await shardEntriesOf(runId);
    expect(seqsAndSummaries(entries)).toEqual([
      [2, true],
      [3, false],
    ]);
    expect(entries[0]?.queued).toEqual({
      agent: "researcher",
      rootRunId: "root",
      depth: 0,
      hasSchema: false,
      createdAt: opening!.at,
    });
    expect(entries[0]?.indexed).toBeUndefined();
  });

  it("summarises a child's run-queued in whichever append comes first: a cancel before it started", async () => {
    const runId = store.newRunId();
    const [opening] = await store.appendEvents(runId, 0, [
      queued({
        parentRunId: "parent-1",
        rootRunId: "root-1",
        depth: 2,
        tenant: "acme",
        outputSchema: { type: "object" },
      }),
    ]);
    // Unfenced, as a client's cancel is; then the cancellation that settles it.
    await store.appendEvents(runId, "any", [cancelRequested()]);
    await store.appendEvents(runId, 2, [cancelled("user")]);
    const entries = await shardEntriesOf(runId);
    expect(seqsAndSummaries(entries)).toEqual([
      [2, true],
      [3, false],
    ]);
    expect(entries[0]?.queued).toEqual({
      agent: "researcher",
      rootRunId: "root-1",
      parentRunId: "parent-1",
      tenant: "acme",
      depth: 2,
      hasSchema: true,
      createdAt: opening!.at,
    });
    expect(entries[1]?.expiresAt).toEqual(expect.any(Number));
  });

  it("keeps the opening's entry for a run with a deadline, a budget, or more events than its run-queued", async () => {
    const budget = {
      treeRunId: "root",
      scopes: [{ runId: "root", limits: { steps: 3 }, onExceeded: "cancel-tree" as const }],
    };
    const openings = [[queuedLoudly()], [queued({ budget })], [queued(), cancelRequested()]];
    for (const opening of openings) {
      const runId = store.newRunId();
      await store.appendEvents(runId, 0, opening);
      await store.appendEvents(runId, opening.length, [started(1)]);
      const entries = await shardEntriesOf(runId);
      expect(seqsAndSummaries(entries)).toEqual([
        [1, false],
        [opening.length + 1, false],
      ]);
      expect(entries[0]?.indexed).toBe(true);
      expect(await fx.redis.hexists(store.keys.runHead(runId), "quietOpening")).toBe(0);
    }
  });
});
