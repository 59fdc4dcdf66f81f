import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "../event-store.js";
import { finished, queued, started } from "../test-support/events.js";
import { commandCalls, type RedisFixture, startRedisFixture } from "../test-support/redis.js";
import {
  announcedRunIds,
  announcedRuns,
  defineIndexRunsScript,
  type IndexSegment,
  indexRuns,
  indexSegment,
  type OutcomeWriter,
  runIndexMember,
} from "./index-runs.js";
import { parseStoredResult } from "./stored-results.js";

const SHARD = 0;

let fx: RedisFixture;

beforeAll(async () => {
  fx = await startRedisFixture();
});
afterAll(async () => {
  await fx?.stop();
});

/** A store of one shard and its writer. */
async function openShard(label: string): Promise<{ store: EventStore; writer: OutcomeWriter }> {
  const store = fx.store(label, { shards: 1 });
  return { store, writer: { keys: store.keys, indexRunsScript: defineIndexRunsScript(fx.redis) } };
}

/** The segment of a run whose log `store` holds, with its result when it settled. */
async function segmentOf(store: EventStore, runId: string): Promise<IndexSegment> {
  const log = await store.readLog(runId);
  const result = settleRun(foldRun(log, runId));
  return indexSegment(store.keys, {
    // Its run-queued's time: the member the append that opened it indexed it under.
    run: { runId, agent: "researcher", createdAt: log[0]?.at ?? "2026-01-01T00:00:00.000Z" },
    ...(result === undefined ? {} : { result }),
  });
}

/** The words of a segment's last argument: its member, deadline, … (`IndexSegment.args`). */
function wordsOf(segment: IndexSegment): string[] {
  return segment.args[2].split(" ");
}

describe("indexRuns of a run its writer listed already", () => {
  it("moves the settled run from active to its status's index and stores its result, leaving the agent's runs be", async () => {
    const { store, writer } = await openShard("listed");
    const runId = store.newRunId();
    const [{ at: queuedAt }] = (await store.appendEvents(runId, 0, [queued()])) as [RunEvent];
    const [queuedFlag] = await indexRuns(writer, SHARD, [await segmentOf(store, runId)]);
    expect(queuedFlag).toBe(true);
    const agentRuns = store.keys.runIndexByAgent(SHARD, "researcher");
    const [member] = await fx.redis.zrange(agentRuns, 0, -1);
    expect(member).toBeDefined();
    // Were the settling call to write the agent's runs again, it would hold the member again.
    await fx.redis.zrem(agentRuns, member!);

    await store.appendEvents(runId, 1, [started(), finished()]);
    const settled = await segmentOf(store, runId);
    const listed = indexSegment(store.keys, {
      run: { runId, agent: "researcher", createdAt: queuedAt, listed: true },
      result: settleRun(foldRun(await store.readLog(runId), runId))!,
    });
    expect(listed.args.slice(0, 2)).toEqual(settled.args.slice(0, 2));
    expect(wordsOf(listed)).toEqual([...wordsOf(settled).slice(0, 2), "1", "", "", "", "", ""]);
    expect(await indexRuns(writer, SHARD, [listed])).toEqual([true]);

    expect(await fx.redis.zcard(agentRuns)).toBe(0);
    expect(await fx.redis.zcard(store.keys.runIndexByStatus(SHARD, "active"))).toBe(0);
    expect(await fx.redis.zrange(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, -1)).toEqual([
      member,
    ]);
    expect(await fx.redis.exists(store.keys.result(runId))).toBe(1);

    // Not said to be listed, the same call writes it again (idempotent).
    expect(await indexRuns(writer, SHARD, [settled])).toEqual([true]);
    expect(await fx.redis.zrange(agentRuns, 0, -1)).toEqual([member]);
    // No index of every run: `list` reads the union of the status indexes.
    expect(await fx.redis.exists(store.keys.runIndex(SHARD))).toBe(0);
  });
});

describe("indexRuns of a run an older settling append moved", () => {
  it("reads no head and leaves its status indexes be: it lists the run, drops its deadline and stores its result until its expiry", async () => {
    const { store, writer } = await openShard("moved");
    const runId = store.newRunId();
    const [{ at: queuedAt }] = (await store.appendEvents(runId, 0, [queued()])) as [RunEvent];
    await store.appendEvents(runId, 1, [started(), finished()]);
    const result = settleRun(foldRun(await store.readLog(runId), runId))!;
    const expiresAt = await fx.redis.pexpiretime(store.keys.runHead(runId));
    const moved = (run: { runId: string; expiresAt: number }) =>
      indexSegment(store.keys, {
        run: {
          agent: "other-agent",
          createdAt: queuedAt,
          deadlineAt: "2030-01-01T00:00:00.000Z",
          moved: true,
          ...run,
        },
        result,
      });
    await fx.redis.zadd(store.keys.deadlines(SHARD), Date.parse("2030-01-01"), runId);
    // Moved as an append older than this version moved it.
    const member = runIndexMember(queuedAt, runId);
    await fx.redis.zrem(store.keys.runIndexByStatus(SHARD, "active"), member);
    await fx.redis.zadd(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, member);
    // Its head taken away: were the call to read it, it would answer false and store nothing.
    await fx.redis.rename(store.keys.runHead(runId), `${store.keys.runHead(runId)}:aside`);
    const succeeded = await fx.redis.zrange(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, -1);

    expect(await indexRuns(writer, SHARD, [moved({ runId, expiresAt })])).toEqual([true]);
    expect(await fx.redis.zrange(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, -1)).toEqual(
      succeeded,
    );
    expect(await fx.redis.zcard(store.keys.runIndexByAgent(SHARD, "other-agent"))).toBe(1);
    expect(await fx.redis.zscore(store.keys.deadlines(SHARD), runId)).toBeNull();
    expect(await fx.redis.pexpiretime(store.keys.result(runId))).toBe(expiresAt);
    // No command on its children: the append gave them their expiry.
    expect(await fx.redis.exists(store.keys.children(runId))).toBe(0);

    // A collector older than `moved` reads the head back and writes the same indexes again.
    await fx.redis.rename(`${store.keys.runHead(runId)}:aside`, store.keys.runHead(runId));
    const older = await segmentOf(store, runId);
    expect(wordsOf(older)[5]).toBe("");
    expect(await indexRuns(writer, SHARD, [older])).toEqual([true]);
    expect(await fx.redis.zrange(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, -1)).toEqual(
      succeeded,
    );
    expect(await fx.redis.zcard(store.keys.runIndexByStatus(SHARD, "active"))).toBe(0);

    // A run whose expiry has passed gets no result.
    const expired = store.newRunId();
    expect(
      await indexRuns(writer, SHARD, [moved({ runId: expired, expiresAt: Date.now() - 1_000 })]),
    ).toEqual([true]);
    expect(await fx.redis.exists(store.keys.result(expired))).toBe(0);
  });
});

describe("indexRuns of a run with a tenant", () => {
  it("indexes it in its tenant's runs too, only a run with a tenant, and drops it there once its head is gone", async () => {
    const { store, writer } = await openShard("tenant");
    const tenanted = store.newRunId();
    const untenanted = store.newRunId();
    await store.appendEvents(tenanted, 0, [queued()]);
    await store.appendEvents(untenanted, 0, [queued()]);
    const segment = (runId: string, tenant?: string) =>
      indexSegment(store.keys, {
        run: {
          runId,
          agent: "researcher",
          ...(tenant === undefined ? {} : { tenant }),
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      });
    expect(
      await indexRuns(writer, SHARD, [segment(tenanted, "acme"), segment(untenanted)]),
    ).toEqual([true, true]);
    const acmeRuns = store.keys.runIndexByTenant(SHARD, "acme");
    const [member] = await fx.redis.zrange(acmeRuns, 0, -1);
    expect(member).toMatch(new RegExp(`:${tenanted}$`));
    expect(await fx.redis.zcard(acmeRuns)).toBe(1);
    expect(await fx.redis.exists(store.keys.runIndexByTenant(SHARD, ""))).toBe(0);

    await fx.redis.del(store.keys.runHead(tenanted));
    expect(await indexRuns(writer, SHARD, [segment(tenanted, "acme")])).toEqual([false]);
    expect(await fx.redis.zcard(acmeRuns)).toBe(0);
  });
});

describe("indexRuns of a settled run whose head its caller knows is there", () => {
  it("reads no head: the status given places it, as the head's would", async () => {
    const { store, writer } = await openShard("known-status");
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), started(), finished()]);
    const read = await segmentOf(store, runId);
    const known = indexSegment(store.keys, {
      run: {
        runId,
        agent: "researcher",
        createdAt: (await store.readLog(runId))[0]!.at,
        status: "succeeded",
      },
      result: settleRun(foldRun(await store.readLog(runId), runId))!,
    });
    expect(known.args.slice(0, 2)).toEqual(read.args.slice(0, 2));
    expect(wordsOf(known)).toEqual([...wordsOf(read).slice(0, 6), "succeeded", ""]);

    const before = await commandCalls(fx.redis, "hget");
    expect(await indexRuns(writer, SHARD, [known])).toEqual([true]);
    expect(await commandCalls(fx.redis, "hget")).toBe(before);
    const [member] = wordsOf(read);
    expect(await fx.redis.zrange(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, -1)).toEqual([
      member,
    ]);
    expect(await fx.redis.zcard(store.keys.runIndexByStatus(SHARD, "active"))).toBe(0);
    expect(await fx.redis.exists(store.keys.result(runId))).toBe(1);

    // Without it, the same call reads the head's status.
    await indexRuns(writer, SHARD, [read]);
    expect(await commandCalls(fx.redis, "hget")).toBe(before + 1);
  });
});

describe("indexRuns of a batch of settled runs", () => {
  it("moves them all in one ZREM from the active runs and one ZADD a status, and leaves the children be of a run whose append expired them", async () => {
    const { store, writer } = await openShard("batch");
    const runIds = [store.newRunId(), store.newRunId(), store.newRunId()];
    for (const runId of runIds) {
      await store.appendEvents(runId, 0, [queued()]);
      await store.appendEvents(runId, 1, [started(), finished()]);
    }
    const [withChildren] = runIds as [string, ...string[]];
    await fx.redis.zadd(store.keys.children(withChildren), 0, "child");
    const segments = await Promise.all(
      runIds.map(async (runId) => {
        const log = await store.readLog(runId);
        return indexSegment(store.keys, {
          run: {
            runId,
            agent: "researcher",
            createdAt: log[0]!.at,
            expiresAt: await fx.redis.pexpiretime(store.keys.runHead(runId)),
            status: "succeeded",
            childrenExpired: true,
          },
          result: settleRun(foldRun(log, runId))!,
        });
      }),
    );
    const calls = async () =>
      Promise.all(["zrem", "zadd", "pexpireat", "set"].map((name) => commandCalls(fx.redis, name)));
    const before = await calls();
    expect(await indexRuns(writer, SHARD, segments)).toEqual([true, true, true]);
    const after = await calls();
    // One ZREM (active), one ZADD a key (succeeded, the agent's runs), no PEXPIREAT, a SET a run.
    expect(after.map((count, i) => count - before[i]!)).toEqual([1, 2, 0, 3]);
    expect(await fx.redis.zcard(store.keys.runIndexByStatus(SHARD, "active"))).toBe(0);
    expect(await fx.redis.zrange(store.keys.runIndexByStatus(SHARD, "succeeded"), 0, -1)).toEqual(
      segments.map((segment) => wordsOf(segment)[0]).sort(),
    );
    expect(await fx.redis.pttl(store.keys.children(withChildren))).toBe(-1);
  });
});

describe("indexRuns' announcement", () => {
  it("carries each result short enough beside the runIds, which a reader splitting at spaces still finds whole", async () => {
    const { store, writer } = await openShard("announce");
    const short = store.newRunId();
    const long = store.newRunId();
    await store.appendEvents(short, 0, [queued(), started(), finished("done")]);
    await store.appendEvents(long, 0, [queued(), started(), finished("x".repeat(2_000))]);
    const subscriber = fx.connect();
    const messages: string[] = [];
    subscriber.on("message", (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(store.keys.settledChannel(SHARD));

    const segments = [await segmentOf(store, short), await segmentOf(store, long)];
    expect(await indexRuns(writer, SHARD, segments)).toEqual([true, true]);
    await expect.poll(() => messages.length).toBe(1);
    const [message] = messages as [string];

    const announced = announcedRuns(message);
    expect(announced.map(({ runId }) => runId)).toEqual([short, long]);
    // The short result as stored; the long one (past 1,024 bytes) left for the reader to read.
    expect(announced[0]?.result).toBe(await fx.redis.get(store.keys.result(short)));
    expect(parseStoredResult(short, announced[0]!.result!).text).toBe("done");
    expect(announced[1]).toEqual({ runId: long });
    expect(announcedRunIds(message)).toEqual([short, long]);
    // A waiter older than carried results splits at spaces: every runId is a word of its own.
    expect(message.split(" ")).toEqual(expect.arrayContaining([short, long]));

    // Only results too long to carry: the message is the runIds alone, as older collectors sent.
    messages.length = 0;
    const longer = store.newRunId();
    await store.appendEvents(longer, 0, [queued(), started(), finished("y".repeat(2_000))]);
    await indexRuns(writer, SHARD, [await segmentOf(store, longer)]);
    await expect.poll(() => messages).toEqual([longer]);
    expect(announcedRuns(longer)).toEqual([{ runId: longer }]);
  });
});
