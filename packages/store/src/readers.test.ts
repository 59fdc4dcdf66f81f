import { isErrandError, newRunId } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventStore, type EventStore } from "./event-store.js";
import { finished, modelResponded, queued, started } from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  // One shard, so that every run of this file shares one shard stream.
  store = fx.store("readers", { shards: 1 });
});
afterAll(async () => {
  await fx?.stop();
});

describe("readLog and readHead", () => {
  it("reads the whole log, or a range of it: after afterSeq, until untilSeq, at most count events", async () => {
    const runId = store.newRunId();
    const appended = await store.appendEvents(runId, 0, [
      queued(),
      started(),
      modelResponded(1),
      finished(),
    ]);
    expect(await store.readLog(runId)).toEqual(appended);
    expect(await store.readLog(runId, { afterSeq: 2 })).toEqual(appended.slice(2));
    expect(await store.readLog(runId, { afterSeq: 4 })).toEqual([]);
    expect(await store.readLog(runId, { untilSeq: 1 })).toEqual(appended.slice(0, 1));
    expect(await store.readLog(runId, { afterSeq: 1, untilSeq: 3 })).toEqual(appended.slice(1, 3));
    expect(await store.readLog(runId, { afterSeq: 1, count: 2 })).toEqual(appended.slice(1, 3));
    const refused = await store.readLog(runId, { count: 0 }).catch((error: unknown) => error);
    expect(isErrandError(refused, "invalid_spec")).toBe(true);
  });

  it("reads a log whose entries mix both shapes, one event each and one append each, in any range", async () => {
    const perEvent = createEventStore({
      redis: fx.redis,
      prefix: store.keys.prefix,
      shards: 1,
      logEntries: "per-event",
    });
    const runId = store.newRunId();
    const older = await perEvent.appendEvents(runId, 0, [queued(), started(), modelResponded(1)]);
    const newer = await store.appendEvents(runId, 3, [modelResponded(2), modelResponded(3)]);
    const last = await perEvent.appendEvents(runId, 5, [modelResponded(4), finished()]);
    const all = [...older, ...newer, ...last];
    expect(await fx.redis.xlen(store.keys.runLog(runId))).toBe(6);
    expect(await store.readLog(runId)).toEqual(all);
    for (let afterSeq = 0; afterSeq <= 7; afterSeq++) {
      for (let untilSeq = afterSeq; untilSeq <= 7; untilSeq++) {
        const range = all.filter((event) => event.seq > afterSeq && event.seq <= untilSeq);
        expect(await store.readLog(runId, { afterSeq, untilSeq })).toEqual(range);
        expect(await store.readLog(runId, { afterSeq, count: 1 })).toEqual(
          all.filter((event) => event.seq > afterSeq).slice(0, 1),
        );
      }
    }
  });

  it("reads nothing for a run that does not exist", async () => {
    const runId = store.newRunId();
    expect(await store.readLog(runId)).toEqual([]);
    expect(await store.readHead(runId)).toBeUndefined();
  });

  it("throws invalid_event for a broken log entry: the log is the truth", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    await fx.redis.xadd(store.keys.runLog(runId), "0-2", "seq", "2", "type", "run-started");
    const error = await store.readLog(runId).catch((caught: unknown) => caught);
    expect(isErrandError(error, "invalid_event")).toBe(true);
  });
});

describe("readShard", () => {
  it("pages through the shard's stream in order, with entry ids", async () => {
    const shard = 0;
    const [first, second] = [store.newRunId(), store.newRunId()];
    expect([shardOfRunId(first), shardOfRunId(second)]).toEqual([shard, shard]);
    await store.appendEvents(first, 0, [queued(), started()]);
    await store.appendEvents(second, 0, [queued()]);
    await store.appendEvents(first, 2, [finished()]);
    await store.appendEvents(second, 1, [started()]);

    const all = await store.readShard(shard);
    const ours = all.filter((entry) => entry.runId === first || entry.runId === second);
    // One entry per append, with its events; none for the second's quiet opening, whose
    // run-queued the append after it summarises.
    expect(
      ours.map((entry) => [entry.runId, entry.events?.map((event) => [event.seq, event.type])]),
    ).toEqual([
      [
        first,
        [
          [1, "run-queued"],
          [2, "run-started"],
        ],
      ],
      [first, [[3, "finished"]]],
      [second, [[2, "run-started"]]],
    ]);
    expect(ours.map((entry) => entry.queued?.agent)).toEqual([undefined, undefined, "researcher"]);
    expect(ours.every((entry) => entry.error === undefined)).toBe(true);
    // Each entry's size: its field names and values together, as stored.
    const raw = (await fx.redis.xrange(store.keys.shardEvents(shard), "-", "+")) as [
      string,
      string[],
    ][];
    const stored = new Map(raw.map(([id, fields]) => [id, fields.join("").length]));
    for (const entry of ours) {
      expect(entry.size).toBeGreaterThan(0);
      expect(entry.size).toBe(stored.get(entry.id));
    }

    const page1 = await store.readShard(shard, { count: 2 });
    const page2 = await store.readShard(shard, { afterId: page1.at(-1)!.id, count: 2 });
    expect([...page1, ...page2].map((entry) => entry.id)).toEqual(
      all.slice(0, 4).map((entry) => entry.id),
    );
  });

  it("reads entries of one event each, as a worker wrote them before one entry per append", async () => {
    const shard = 0;
    const key = store.keys.shardEvents(shard);
    const runId = store.newRunId();
    const appended = await store.appendEvents(runId, 0, [queued(), started(), finished()]);
    // The fields of the older format, in its order.
    const perEvent = appended.map(({ seq, type, at, data }) =>
      Object.entries({ runId, seq: String(seq), type, at, data: JSON.stringify(data) }).flat(),
    );
    const ids: string[] = [];
    for (const fields of perEvent) ids.push((await fx.redis.xadd(key, "*", ...fields))!);

    const entries = (await store.readShard(shard, { count: 1_000 })).filter((entry) =>
      ids.includes(entry.id),
    );
    expect(entries.map((entry) => entry.events)).toEqual(appended.map((event) => [event]));
    expect(entries.map((entry) => entry.size)).toEqual(
      perEvent.map((fields) => fields.join("").length),
    );
  });

  it("returns entries that are not valid events with an error instead of throwing", async () => {
    const shard = 0;
    const key = store.keys.shardEvents(shard);
    const runId = store.newRunId();
    // Opened quietly: no entry before the garbage.
    await store.appendEvents(runId, 0, [queued()]);
    const at = new Date(0).toISOString();
    const garbage = [
      ["seq", "2", "type", "run-started", "at", at, "data", "{}"],
      ["runId", runId, "seq", "2", "type", "run-started", "at", at, "data", "{not json"],
      ["runId", runId, "seq", "2", "type", "run-exploded", "at", at, "data", "{}"],
      ["runId", runId, "seq", "two", "type", "finished", "at", at, "data", "{}"],
      ["runId", runId, "seq", "2", "type", "finished", "at", "tomorrow", "data", "{}"],
      ["hello", "world"],
      ["runId", runId, "seq", "2", "events", `[["run-started", "${at}", {}]`],
      ["runId", runId, "seq", "2", "events", "[]"],
      ["runId", runId, "seq", "2", "events", `[["finished", "${at}", {}], "x"]`],
      ["runId", runId, "seq", "2", "events", `[["run-exploded", "${at}", {}]]`],
    ];
    const garbageIds: string[] = [];
    for (const fields of garbage) garbageIds.push((await fx.redis.xadd(key, "*", ...fields))!);
    const goodAfter = await store.appendEvents(runId, 1, [started()]);

    const entries = (await store.readShard(shard, { count: 1_000 })).filter(
      (entry) => entry.runId === runId || garbageIds.includes(entry.id),
    );
    expect(entries).toHaveLength(garbage.length + 1);
    expect(entries.at(-1)?.events).toEqual(goodAfter);
    const broken = entries.slice(0, -1);
    expect(broken.map((entry) => entry.id)).toEqual(garbageIds);
    for (const entry of broken) {
      expect(entry.events).toBeUndefined();
      expect(entry.error).toEqual(expect.any(String));
      expect(entry.error).not.toBe("");
    }
    expect(broken[0]?.error).toMatch(/runId/);
    expect(broken[1]?.error).toMatch(/JSON/);
    expect(broken.slice(-4).map((entry) => entry.error)).toEqual([
      "events: not JSON",
      "events: not a list of events",
      expect.stringMatching(/^event 2: /),
      expect.stringMatching(/^event 1: /),
    ]);
  });

  it("returns entries of a foreign run (another shard's, or no run id) with an error, and reads data without validating it again", async () => {
    const shard = 0;
    const key = store.keys.shardEvents(shard);
    const runId = store.newRunId();
    const at = new Date(0).toISOString();
    const random = new Uint8Array(16).fill(7);
    const otherShards = newRunId({ shard: 3, nowMs: Date.parse(at), random });
    const foreign = [
      ["runId", otherShards, "seq", "1", "events", `[["run-started", "${at}", {"attempt": 1}]]`],
      ["runId", "not-a-run", "seq", "1", "events", `[["run-started", "${at}", {"attempt": 1}]]`],
    ];
    const ids: string[] = [];
    for (const fields of foreign) ids.push((await fx.redis.xadd(key, "*", ...fields))!);
    // Data its type's schema refuses (a wrong attempt): not this reader's to refuse.
    const unchecked = { attempt: "first" };
    const uncheckedId = (await fx.redis.xadd(
      key,
      "*",
      ...["runId", runId, "seq", "7", "events", JSON.stringify([["run-started", at, unchecked]])],
    ))!;

    const entries = (await store.readShard(shard, { count: 1_000 })).filter(
      (entry) => ids.includes(entry.id) || entry.id === uncheckedId,
    );
    expect(entries.map(({ id, events, error }) => ({ id, events, error }))).toEqual([
      {
        id: ids[0],
        events: undefined,
        error: `runId: a run of shard 3, foreign to the stream of shard ${shard}`,
      },
      { id: ids[1], events: undefined, error: 'runId: not a run id ("not-a-run")' },
      {
        id: uncheckedId,
        events: [{ v: 1, runId, seq: 7, type: "run-started", at, data: unchecked }],
        error: undefined,
      },
    ]);
  });
});
