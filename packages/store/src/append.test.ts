import { foldRun, isErrandError, type NewEvent } from "@errand/core";
import { markChecked, shardOfRunId } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeShardEntry } from "./codec.js";
import { isSeqConflict, SeqConflictError } from "./errors.js";
import { createEventStore, type EventStore } from "./event-store.js";
import type { RunHead } from "./head.js";
import { runIndexMember } from "./outcomes/index-runs.js";
import {
  cancelled,
  cancelRequested,
  failed,
  finished,
  modelResponded,
  newEvent,
  outputRecorded,
  queued,
  started,
} from "./test-support/events.js";
import { commandCalls, type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("append");
});
afterAll(async () => {
  await fx?.stop();
});

/** The entries of the run's shard stream that belong to the run, as `[id, fields]`. */
async function shardEntriesOf(runId: string): Promise<[string, string[]][]> {
  const entries = (await fx.redis.xrange(
    store.keys.shardEvents(shardOfRunId(runId)),
    "-",
    "+",
  )) as [string, string[]][];
  return entries.filter(([, fields]) => fields[1] === runId);
}

/** What a refused append must leave untouched. */
async function snapshot(runId: string) {
  return {
    log: await fx.redis.xlen(store.keys.runLog(runId)),
    shard: await fx.redis.xlen(store.keys.shardEvents(shardOfRunId(runId))),
    head: await fx.redis.hgetall(store.keys.runHead(runId)),
  };
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("the append was accepted but should have been refused");
    },
    (error: unknown) => error,
  );
}

async function scriptCalls(): Promise<number> {
  return (await commandCalls(fx.redis, "evalsha")) + (await commandCalls(fx.redis, "eval"));
}

/** The head of a run of the `queued()` test event, just queued at `at`: the fields `overrides` gives beside the defaults. */
function queuedHead(runId: string, at: string, overrides: Partial<RunHead>): RunHead {
  return {
    runId,
    seq: 1,
    status: "queued",
    attempt: 0,
    hasOutput: false,
    hasSchema: false,
    cancelRequested: false,
    hasChildren: false,
    agent: "researcher",
    rootRunId: runId,
    depth: 0,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

describe("appendEvents", () => {
  it("writes a batch to the log and the shard stream in order, seq 1…n, in one script call", async () => {
    // The first call on a fresh server also loads the script (EVALSHA, then EVAL): warm up.
    await store.appendEvents(store.newRunId(), 0, [queued()]);

    const runId = store.newRunId();
    const opening = queued();
    const batch = [started(1), modelResponded(1), modelResponded(2), finished("done")];
    const callsBefore = await scriptCalls();
    const [first] = await store.appendEvents(runId, 0, [opening]);
    const appended = await store.appendEvents(runId, 1, batch);
    expect((await scriptCalls()) - callsBefore).toBe(2);

    expect(appended).toEqual(
      batch.map((event, index) => ({ v: 1, runId, seq: index + 2, ...event })),
    );
    expect(await store.readLog(runId)).toEqual([first, ...appended]);

    // One log entry for the whole append: its id the last seq, the first seq, every event.
    const eventsJson = JSON.stringify(batch.map((event) => [event.type, event.at, event.data]));
    expect((await fx.redis.xrange(store.keys.runLog(runId), "-", "+")).slice(1)).toEqual([
      ["0-5", ["seq", "2", "events", eventsJson]],
    ]);
    // One shard entry for the whole append (the opening, quiet, wrote none): the runId, the
    // first seq, every event, the run-queued's summary and, as the batch settles the run, the
    // expiry it set on the head (the collector's, for the result) and that it gave the run's
    // children their expiry.
    const shardEntries = await shardEntriesOf(runId);
    const headExpiresAt = await fx.redis.pexpiretime(store.keys.runHead(runId));
    expect(headExpiresAt).toBeGreaterThan(Date.now());
    expect(await fx.redis.pexpiretime(store.keys.runLog(runId))).toBe(headExpiresAt);
    expect(shardEntries.map(([, fields]) => fields)).toEqual([
      [
        ...["runId", runId, "seq", "2", "events", eventsJson, "queued", expect.any(String)],
        ...["expiresAt", String(headExpiresAt), "childrenExpired", "1"],
      ],
    ]);
    expect(decodeShardEntry(shardOfRunId(runId), shardEntries[0]!).expiresAt).toBe(headExpiresAt);
  });

  it("writes a batch opening a run one log entry per event: its first entry, 0-1, tells a run that exists", async () => {
    const runId = store.newRunId();
    const batch = [queued(), started(1)];
    await store.appendEvents(runId, 0, batch);
    expect(await fx.redis.xrange(store.keys.runLog(runId), "-", "+")).toEqual(
      batch.map((event, index) => [
        `0-${index + 1}`,
        [
          "seq",
          String(index + 1),
          "type",
          event.type,
          "at",
          event.at,
          "data",
          JSON.stringify(event.data),
        ],
      ]),
    );
  });

  it("writes one log entry per event with logEntries per-event, and one for an append of one event", async () => {
    // A writer of the same store, appending one entry per event.
    const perEvent = createEventStore({
      redis: fx.redis,
      prefix: store.keys.prefix,
      logEntries: "per-event",
    });
    const runId = perEvent.newRunId();
    const batch = [queued(), started(1), modelResponded(1)];
    const last = finished("done");
    await perEvent.appendEvents(runId, 0, batch);
    await store.appendEvents(runId, 3, [last]);
    // The shape every reader reads: seq, type, at, data, entry id the seq.
    expect(await fx.redis.xrange(store.keys.runLog(runId), "-", "+")).toEqual(
      [...batch, last].map((event, index) => [
        `0-${index + 1}`,
        [
          "seq",
          String(index + 1),
          "type",
          event.type,
          "at",
          event.at,
          "data",
          JSON.stringify(event.data),
        ],
      ]),
    );
  });

  it("indexes a run as queued in the append that opens it, and says so in its shard entry", async () => {
    const runId = store.newRunId();
    const shard = shardOfRunId(runId);
    const deadlineAt = "2030-01-01T00:00:00.000Z";
    const opening = queued({ tenant: "acme", limits: { maxSteps: 10, deadlineAt } });
    await store.appendEvents(runId, 0, [opening]);
    const member = runIndexMember(opening.at, runId);
    for (const index of [
      store.keys.runIndexByStatus(shard, "active"),
      store.keys.runIndexByAgent(shard, "researcher"),
      store.keys.runIndexByTenant(shard, "acme"),
    ]) {
      expect(await fx.redis.zscore(index, member)).toBe("0");
    }
    expect(await fx.redis.zscore(store.keys.deadlines(shard), runId)).toBe(
      String(Date.parse(deadlineAt)),
    );
    await store.appendEvents(runId, 1, [started(1), finished("done")]);
    const [openingEntry, settlingEntry] = (await shardEntriesOf(runId)).map((entry) =>
      decodeShardEntry(shard, entry),
    );
    expect(openingEntry?.indexed).toBe(true);
    // The settling append leaves the run's indexes to the collector (which moves a batch of runs
    // in one ZREM and one ZADD), and says it gave the run's children their expiry; the agent's
    // and tenant's runs keep it, and its deadline is the collector's to drop.
    expect(settlingEntry?.indexed).toBeUndefined();
    expect(settlingEntry?.moved).toBeUndefined();
    expect(settlingEntry?.childrenExpired).toBe(true);
    expect(await fx.redis.zscore(store.keys.runIndexByStatus(shard, "active"), member)).toBe("0");
    expect(await fx.redis.exists(store.keys.runIndexByStatus(shard, "succeeded"))).toBe(0);
    expect(await fx.redis.zscore(store.keys.runIndexByTenant(shard, "acme"), member)).toBe("0");
    expect(await fx.redis.zscore(store.keys.deadlines(shard), runId)).not.toBeNull();
    expect(await fx.redis.exists(store.keys.runIndexByAgent(shard, ""))).toBe(0);

    // A run opened and settled in one batch is left to the collector altogether.
    const settledAtOnce = store.newRunId();
    const [queuedAtOnce] = await store.appendEvents(settledAtOnce, 0, [
      queued(),
      cancelled("user"),
    ]);
    const atOnce = runIndexMember(queuedAtOnce!.at, settledAtOnce);
    const settledShard = shardOfRunId(settledAtOnce);
    expect(
      await fx.redis.zscore(store.keys.runIndexByStatus(settledShard, "active"), atOnce),
    ).toBeNull();
    const [atOnceEntry] = await shardEntriesOf(settledAtOnce);
    expect(decodeShardEntry(settledShard, atOnceEntry!).indexed).toBeUndefined();
    expect(decodeShardEntry(settledShard, atOnceEntry!).moved).toBeUndefined();
  });

  it("keeps a head that agrees with the fold", async () => {
    const runId = store.newRunId();
    const first = queued({
      parentRunId: "parent-1",
      rootRunId: "root-1",
      depth: 2,
      priority: 3,
      concurrencyKey: "tenant-a",
    });
    await store.appendEvents(runId, 0, [first]);
    expect(await store.readHead(runId)).toEqual(
      queuedHead(runId, first.at, {
        rootRunId: "root-1",
        parentRunId: "parent-1",
        depth: 2,
        priority: 3,
        concurrencyKey: "tenant-a",
      }),
    );

    const attempt2 = started(2);
    await store.appendEvents(runId, 1, [started(1), attempt2, modelResponded(1)]);
    const last = cancelled("user");
    await store.appendEvents(runId, 4, [cancelRequested(), last]);

    const head = await store.readHead(runId);
    const state = foldRun(await store.readLog(runId));
    expect(head).toMatchObject({
      seq: state.seq,
      status: state.status,
      attempt: state.attempts,
      cancelRequested: true,
      startedAt: state.startedAt,
      settledAt: state.settledAt,
      updatedAt: last.at,
    });
    expect(head?.status).toBe("cancelled");
    expect(head?.startedAt).not.toBe(attempt2.at);
  });

  it("reads a head without what its key says (runId, a run's own root, false flags), as a later version writes it", async () => {
    const root = store.newRunId();
    const first = queued({ rootRunId: root });
    await store.appendEvents(root, 0, [first]);
    const whole = await store.readHead(root);
    expect(whole).toEqual(queuedHead(root, first.at, { rootRunId: root }));
    await fx.redis.hdel(
      store.keys.runHead(root),
      "runId",
      "rootRunId",
      "hasSchema",
      "hasOutput",
      "cancelRequested",
    );
    expect(await store.readHead(root)).toEqual(whole);

    // A child's root is another run's: a slim head keeps it, and it reads as written.
    const child = store.newRunId();
    await store.appendEvents(child, 0, [queued({ rootRunId: root, parentRunId: root, depth: 1 })]);
    await fx.redis.hdel(store.keys.runHead(child), "runId", "hasSchema");
    expect(await store.readHead(child)).toMatchObject({ runId: child, rootRunId: root });
  });

  it("settles a schema'd run as the fold does: failed without an output, succeeded with one", async () => {
    const outputSchema = { type: "object", properties: {}, additionalProperties: false };
    const withoutOutput = store.newRunId();
    await store.appendEvents(withoutOutput, 0, [queued({ outputSchema }), started(), finished()]);
    const withOutput = store.newRunId();
    await store.appendEvents(withOutput, 0, [
      queued({ outputSchema }),
      started(),
      outputRecorded(1, {}),
      finished(),
    ]);

    for (const [runId, expected] of [
      [withoutOutput, "failed"],
      [withOutput, "succeeded"],
    ] as const) {
      const head = await store.readHead(runId);
      expect(head?.status).toBe(expected);
      expect(foldRun(await store.readLog(runId)).status).toBe(expected);
      expect(head?.hasSchema).toBe(true);
    }
    expect((await store.readHead(withOutput))?.hasOutput).toBe(true);
  });

  it("lets exactly one of two writers with the same expected seq win; the loser writes nothing", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    const before = await snapshot(runId);

    const writerA = [started(1), modelResponded(1)];
    const writerB = [started(2)];
    const outcomes = await Promise.allSettled([
      store.appendEvents(runId, 1, writerA),
      store.appendEvents(runId, 1, writerB),
    ]);

    const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const lost = outcomes.flatMap((outcome) =>
      outcome.status === "rejected" ? [outcome.reason] : [],
    );
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = outcomes[0]?.status === "fulfilled" ? writerA : writerB;

    const error = lost[0];
    expect(error).toBeInstanceOf(SeqConflictError);
    expect(isSeqConflict(error)).toBe(true);
    expect(isErrandError(error, "seq_conflict")).toBe(true);
    expect((error as SeqConflictError).currentSeq).toBe(1 + winner.length);
    expect((error as SeqConflictError).details).toMatchObject({
      expectedSeq: 1,
      currentSeq: 1 + winner.length,
    });

    const log = await store.readLog(runId);
    expect(log.map(({ type, at, data }) => ({ type, at, data }))).toEqual([
      expect.objectContaining({ type: "run-queued" }),
      ...winner,
    ]);
    const after = await snapshot(runId);
    // The winner's append is one log entry and one shard entry.
    expect(after.log).toBe(before.log + 1);
    expect(after.shard).toBe(before.shard + 1);
  });

  it("refuses a stale writer after the fact without touching the log, the shard stream or the head", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), started(1)]);
    const before = await snapshot(runId);

    const error = await refusal(store.appendEvents(runId, 1, [modelResponded(1)]));
    expect(isSeqConflict(error) && error.currentSeq).toBe(2);
    expect(await snapshot(runId)).toEqual(before);
  });

  it("refuses anything after a terminal event, fenced or not", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), started(), finished("ok")]);
    const before = await snapshot(runId);

    for (const attempt of [
      store.appendEvents(runId, 3, [modelResponded(2)]),
      store.appendEvents(runId, 3, [failed()]),
      store.appendEvents(runId, "any", [cancelRequested()]),
    ]) {
      const error = await refusal(attempt);
      expect(isErrandError(error, "run_settled")).toBe(true);
      expect((error as { details: unknown }).details).toMatchObject({ currentSeq: 3 });
    }
    expect(await snapshot(runId)).toEqual(before);
  });

  it("refuses a second terminal event in one batch and writes none of the batch", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    const before = await snapshot(runId);

    const error = await refusal(store.appendEvents(runId, 1, [started(), finished(), failed()]));
    expect(isErrandError(error, "run_settled")).toBe(true);
    expect((error as { details: unknown }).details).toMatchObject({ eventIndex: 2 });
    expect(await snapshot(runId)).toEqual(before);
    expect((await store.readHead(runId))?.status).toBe("queued");
  });

  it("refuses a second output-recorded, in a later append or in the same batch", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), started(), outputRecorded(1, { a: 1 })]);
    const before = await snapshot(runId);
    const later = await refusal(store.appendEvents(runId, 3, [outputRecorded(2, { a: 2 })]));
    expect(isErrandError(later, "output_already_recorded")).toBe(true);
    expect(await snapshot(runId)).toEqual(before);

    const other = store.newRunId();
    await store.appendEvents(other, 0, [queued()]);
    const otherBefore = await snapshot(other);
    const sameBatch = await refusal(
      store.appendEvents(other, 1, [outputRecorded(1, { a: 1 }), outputRecorded(1, { a: 2 })]),
    );
    expect(isErrandError(sameBatch, "output_already_recorded")).toBe(true);
    expect(await snapshot(other)).toEqual(otherBefore);
  });

  it("appends cancel-requested unfenced ('any') whatever the seq, and fences later writers", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), started()]);

    const [request] = await store.appendEvents(runId, "any", [cancelRequested("dashboard")]);
    expect(request).toMatchObject({ seq: 3, type: "cancel-requested", data: { by: "dashboard" } });
    expect((await store.readHead(runId))?.cancelRequested).toBe(true);

    const error = await refusal(store.appendEvents(runId, 2, [modelResponded(1)]));
    expect(isSeqConflict(error) && error.currentSeq).toBe(3);
    await store.appendEvents(runId, 3, [cancelled()]);
    expect((await store.readHead(runId))?.status).toBe("cancelled");
  });

  it("refuses invalid event data client-side: no script call, nothing written", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    const before = await snapshot(runId);
    const callsBefore = await scriptCalls();

    const invalidBatches = [
      [started(0)],
      [newEvent("run-started", { attempt: 1 } as never)],
      [{ ...modelResponded(1), at: "yesterday" }],
      [{ type: "run-exploded", at: new Date(0).toISOString(), data: {} } as never],
      [started(), newEvent("failed", { code: "", message: "x", retryable: false })],
    ];
    for (const events of invalidBatches) {
      const error = await refusal(store.appendEvents(runId, 1, events));
      expect(isErrandError(error, "invalid_event")).toBe(true);
    }
    expect((await scriptCalls()) - callsBefore).toBe(0);
    expect(await snapshot(runId)).toEqual(before);
  });

  it("appends an event marked checked as it is, unvalidated, and still fenced", async () => {
    // Validation would drop the unknown key; a checked event is its writer's word, taken as it is.
    const extra = () => {
      const event = queued();
      const data: Record<string, unknown> = { ...event.data, note: "kept" };
      return { ...event, data } as NewEvent;
    };
    const checkedRun = store.newRunId();
    const [checkedQueued] = await store.appendEvents(checkedRun, 0, [markChecked(extra())]);
    expect(checkedQueued?.data).toHaveProperty("note", "kept");
    expect((await store.readLog(checkedRun))[0]?.data).toHaveProperty("note", "kept");
    const plainRun = store.newRunId();
    const [plainQueued] = await store.appendEvents(plainRun, 0, [extra()]);
    expect(plainQueued?.data).not.toHaveProperty("note");

    const stale = await refusal(store.appendEvents(checkedRun, 0, [markChecked(started())]));
    expect(isSeqConflict(stale)).toBe(true);
    expect((await store.readHead(checkedRun))?.seq).toBe(1);
  });

  it("refuses run-queued data Redis' JSON reader cannot read, naming why: nothing written", async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 1_000; i++) deep = [deep];
    const unreadable = [
      [queued({ input: deep }), /data\.input(\[0\])+ is nested more than 1000 levels deep/],
      [queued({ input: { note: "\ud800" } }), /data\.input\.note contains a lone surrogate/],
    ] as const;
    for (const [event, why] of unreadable) {
      const runId = store.newRunId();
      const callsBefore = await scriptCalls();
      const error = await refusal(store.appendEvents(runId, 0, [event]));
      expect(isErrandError(error, "invalid_event")).toBe(true);
      expect((error as Error).message).toMatch(why);
      expect((await scriptCalls()) - callsBefore).toBe(0);
      expect(await snapshot(runId)).toEqual({ log: 0, shard: expect.any(Number), head: {} });
    }
    let deepest: unknown = "leaf";
    for (let i = 0; i < 999; i++) deepest = [deepest]; // with data itself: exactly 1,000 levels
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued({ input: deepest })]);
    expect((await store.readHead(runId))?.status).toBe("queued");
  });

  it("refuses to start a log with anything but run-queued, and run-queued anywhere else", async () => {
    const unknown = store.newRunId();
    const notFound = await refusal(store.appendEvents(unknown, 0, [started()]));
    expect(isErrandError(notFound, "not_found")).toBe(true);
    const notFoundAny = await refusal(store.appendEvents(unknown, "any", [cancelRequested()]));
    expect(isErrandError(notFoundAny, "not_found")).toBe(true);

    const twice = await refusal(store.appendEvents(unknown, 0, [queued(), queued()]));
    expect(isErrandError(twice, "invalid_spec")).toBe(true);
    expect(await snapshot(unknown)).toEqual({ log: 0, shard: expect.any(Number), head: {} });
    expect(await fx.redis.exists(store.keys.runLog(unknown), store.keys.runHead(unknown))).toBe(0);

    const existing = store.newRunId();
    await store.appendEvents(existing, 0, [queued()]);
    const before = await snapshot(existing);
    const again = await refusal(store.appendEvents(existing, "any", [queued()]));
    expect(isErrandError(again, "invalid_spec")).toBe(true);
    // A batch opening a run reads no head: its log's first entry refuses it, alone or with more.
    for (const batch of [[queued()], [queued(), started(1)]]) {
      const reopened = await refusal(store.appendEvents(existing, 0, batch));
      expect(isErrandError(reopened, "invalid_spec")).toBe(true);
    }
    expect(await snapshot(existing)).toEqual(before);
  });

  it("returns [] for an empty batch and refuses a malformed run id or expected seq", async () => {
    expect(await store.appendEvents(store.newRunId(), 0, [])).toEqual([]);
    const badId = await refusal(store.appendEvents("run:1", 0, [queued()]));
    expect(isErrandError(badId, "invalid_spec")).toBe(true);
    const badSeq = await refusal(store.appendEvents(store.newRunId(), -1, [queued()]));
    expect(isErrandError(badSeq, "invalid_spec")).toBe(true);
  });
});
