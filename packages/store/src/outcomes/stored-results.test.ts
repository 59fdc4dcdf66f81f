/**
 * The one reader of a stored `RunResult`: what the collector writes is read
 * back through its schema, and anything else under a result's key is an
 * `internal` error naming the run, never a value cast into a result.
 */
import { foldRun, isErrandError, type RunResult, settleRun } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "../event-store.js";
import { finished, modelResponded, queued, started } from "../test-support/events.js";
import { type RedisFixture, startRedisFixture } from "../test-support/redis.js";
import { defineStandingsScript } from "./standings.js";
import {
  newestPendingRunIds,
  parseStoredResult,
  readStoredResults,
  readStoredRuns,
} from "./stored-results.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("stored-results");
});
afterAll(async () => {
  await fx?.stop();
});

/** A settled run's result as the collector folds it from the run's log. */
async function settledResult(): Promise<RunResult> {
  const runId = store.newRunId();
  await store.appendEvents(runId, 0, [queued(), started(), modelResponded(1, "done"), finished()]);
  const result = settleRun(foldRun(await store.readLog(runId)));
  if (result === undefined) throw new Error(`run ${runId} did not settle`);
  return result;
}

describe("parseStoredResult", () => {
  it("reads back the JSON of a settled run's result as that result", async () => {
    const result = await settledResult();
    expect(parseStoredResult(result.runId, JSON.stringify(result))).toEqual(result);
  });

  it("reads a result stored without its runId and a root run's own root, as storedResultJson stores it", async () => {
    const settled = await settledResult();
    const result = { ...settled, rootRunId: settled.runId };
    const { runId, rootRunId: _ownRoot, ...slim } = result;
    expect(parseStoredResult(runId, JSON.stringify(slim))).toEqual(result);
    const childOf = { ...slim, rootRunId: "another-root" };
    expect(parseStoredResult(runId, JSON.stringify(childOf))).toEqual({
      ...result,
      rootRunId: "another-root",
    });
  });

  it("refuses text that is not JSON, and JSON that is not a RunResult, as internal", async () => {
    const result = await settledResult();
    const unreadable = [
      "{ not json",
      JSON.stringify({ runId: result.runId }),
      JSON.stringify({ ...result, status: "settled-somehow" }),
      JSON.stringify([result]),
    ];
    for (const text of unreadable) {
      const refused = (() => {
        try {
          return parseStoredResult(result.runId, text);
        } catch (error) {
          return error;
        }
      })();
      expect(isErrandError(refused, "internal"), text).toBe(true);
      expect((refused as Error).message).toContain(result.runId);
    }
  });
});

describe("readStoredResults", () => {
  it("gives each run's stored result in order, undefined where none is stored", async () => {
    const result = await settledResult();
    const unsettled = store.newRunId();
    await fx.redis.set(store.keys.result(result.runId), JSON.stringify(result));
    expect(
      await readStoredResults({ redis: fx.redis, keys: store.keys }, [unsettled, result.runId]),
    ).toEqual([undefined, result]);
  });

  it("throws internal for a value under a result's key that the collector could not have written", async () => {
    const runId = store.newRunId();
    await fx.redis.set(store.keys.result(runId), JSON.stringify({ status: "succeeded" }));
    const refused = await readStoredResults({ redis: fx.redis, keys: store.keys }, [runId]).catch(
      (error: unknown) => error,
    );
    expect(isErrandError(refused, "internal")).toBe(true);
  });
});

/** The calls of each command the server has served so far (`INFO commandstats`). */
async function commandCalls(): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const [, name, count] of (await fx.redis.info("commandstats")).matchAll(
    /^cmdstat_([^:]+):calls=(\d+)/gm,
  )) {
    calls.set(name!, Number(count));
  }
  return calls;
}

describe("readStoredRuns", () => {
  it("reads the runs read in full of a shard together: one MGET of their results, one EXISTS of the other runs' heads", async () => {
    const oneShard = fx.store("stored-results-one-shard", { shards: 1 });
    const context = {
      redis: fx.redis,
      keys: oneShard.keys,
      standingsScript: defineStandingsScript(fx.redis),
    };
    const settledRun = await settledResult();
    const pending = [oneShard.newRunId(), oneShard.newRunId()];
    for (const runId of pending) await oneShard.appendEvents(runId, 0, [queued()]);
    const settledHere = oneShard.newRunId();
    const result = { ...settledRun, runId: settledHere, rootRunId: settledHere };
    await oneShard.appendEvents(settledHere, 0, [queued()]);
    await fx.redis.set(oneShard.keys.result(settledHere), JSON.stringify(result));
    const unknown = oneShard.newRunId();
    const counted = oneShard.newRunId();
    await oneShard.appendEvents(counted, 0, [queued(), started(), finished()]);
    await fx.redis.set(
      oneShard.keys.result(counted),
      JSON.stringify({ ...result, runId: counted }),
    );

    const measure = async (full: string[], countedIds: string[] = []) => {
      const before = await commandCalls();
      const read = await readStoredRuns(context, full, countedIds);
      const after = await commandCalls();
      const called = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
      return { read, called };
    };

    // Each head there: one MGET and one EXISTS, however many runs.
    const page = await measure([settledHere, ...pending, "not-a-run"]);
    expect(page.read.results).toEqual(new Map([[settledHere, result]]));
    expect(page.read.standings).toEqual(
      new Map([
        [settledHere, "succeeded"],
        [pending[0], "pending"],
        [pending[1], "pending"],
        ["not-a-run", "not_found"],
      ]),
    );
    expect(page.called("mget")).toBe(1);
    expect(page.called("exists")).toBe(1);
    expect(page.called("get") + page.called("hget")).toBe(0);

    // A run without a head: each head without a result is then looked up on its own.
    // Counted: its result's EXISTS and its head's status. No GET outside the scripts.
    const mixed = await measure([...pending, unknown], [counted, pending[0]!]);
    expect(mixed.read.standings).toEqual(
      new Map([
        [pending[0], "pending"],
        [pending[1], "pending"],
        [unknown, "not_found"],
        [counted, "succeeded"],
      ]),
    );
    expect(mixed.called("mget")).toBe(1);
    expect(mixed.called("exists")).toBe(1 + 3 + 1);
    expect(mixed.called("hget")).toBe(1);
    expect(mixed.called("get")).toBe(0);
  });

  it("reads a lone run head first when it is expected pending: a pending run costs its head's status alone", async () => {
    const context = {
      redis: fx.redis,
      keys: store.keys,
      standingsScript: defineStandingsScript(fx.redis),
    };
    const settled = await settledResult();
    await fx.redis.set(store.keys.result(settled.runId), JSON.stringify(settled));
    const pending = store.newRunId();
    await store.appendEvents(pending, 0, [queued()]);
    // Settled by its head, its result not stored yet: still pending.
    const unannounced = (await settledResult()).runId;
    const unknown = store.newRunId();

    const readAlone = async (runId: string) => {
      const before = await commandCalls();
      const read = await readStoredRuns(context, [runId], [], { expectPending: true });
      const after = await commandCalls();
      const called = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
      return {
        standing: read.standings.get(runId),
        result: read.results.get(runId),
        lookups: ["hget", "get", "exists", "mget"].map(called),
      };
    };

    // Lookups as [HGET, GET, EXISTS, MGET]: a GET only for a settled head, or none.
    expect(await readAlone(pending)).toEqual({
      standing: "pending",
      result: undefined,
      lookups: [1, 0, 0, 0],
    });
    expect(await readAlone(settled.runId)).toEqual({
      standing: "succeeded",
      result: settled,
      lookups: [1, 1, 0, 0],
    });
    expect(await readAlone(unannounced)).toEqual({
      standing: "pending",
      result: undefined,
      lookups: [1, 1, 0, 0],
    });
    expect(await readAlone(unknown)).toEqual({
      standing: "not_found",
      result: undefined,
      lookups: [1, 1, 0, 0],
    });
  });
});

describe("newestPendingRunIds", () => {
  /**
   * `count` runs in creation order, of which those `isPending` picks have a
   * head still running and the others a head and a result, succeeded.
   */
  async function runsOf(count: number, isPending: (index: number) => boolean): Promise<string[]> {
    const runIds = Array.from({ length: count }, () => store.newRunId());
    const writes = fx.redis.pipeline();
    runIds.forEach((runId, index) => {
      const pending = isPending(index);
      writes.hset(store.keys.runHead(runId), "status", pending ? "running" : "succeeded");
      if (!pending) writes.set(store.keys.result(runId), "{}");
    });
    await writes.exec();
    return runIds;
  }

  /** What `newestPendingRunIds` answers for `runIds`, and the head and result lookups it cost. */
  async function newestPending(runIds: readonly string[]) {
    const context = {
      redis: fx.redis,
      keys: store.keys,
      standingsScript: defineStandingsScript(fx.redis),
    };
    const before = await commandCalls();
    const pending = await newestPendingRunIds(context, runIds);
    const after = await commandCalls();
    const called = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    return { pending, lookups: called("exists") + called("hget") + called("get") };
  }

  it("reads the newest slice alone while it holds a pending run: the same lookups for 4,000 runs as for 1,000", async () => {
    // The older half settled, the newer half pending: a fan-out's children halfway through.
    const small = await runsOf(1_000, (index) => index >= 500);
    const large = await runsOf(4_000, (index) => index >= 2_000);
    const few = await newestPending(small);
    const many = await newestPending(large);
    expect(few.pending).toEqual(small.slice(500));
    expect(many.pending).toEqual(large.slice(3_000));
    expect(few.lookups).toBeGreaterThan(0);
    expect(many.lookups).toBe(few.lookups);
  });

  it("reads back slice by slice to the pending runs, and every run once none is pending", async () => {
    const oldestPending = await runsOf(2_500, (index) => index < 10);
    expect((await newestPending(oldestPending)).pending).toEqual(oldestPending.slice(0, 10));
    const settled = await runsOf(2_500, () => false);
    const none = await newestPending(settled);
    expect(none.pending).toEqual([]);
    // Counted, each settled run costs its result's EXISTS and its head's status.
    expect(none.lookups).toBe(2 * 2_500);
  });
});
