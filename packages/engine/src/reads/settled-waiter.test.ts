/**
 * The settled waiter across a Redis restart: an announcement published while
 * its subscriber is away is lost, so once it is back every waiter reads again.
 * Each announcement its subscriber hears is told on a diagnostics channel. A
 * result an announcement carries ends a wait without a read.
 * Its own `redis-server` (append-only file on, so the restart keeps the data).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { RunResult } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { createEventStore } from "@errand/store";
import {
  createSettledWaiter,
  SETTLED_HEARD_CHANNEL,
  type SettledHeard,
  SUBSCRIPTION_LINGER_MS,
  storedResultJson,
} from "@errand/store/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { planRuns } from "../collector/test-support/planned-runs.js";
import { engineKeys } from "../engine-keys.js";
import { createRunReads } from "./create-run-reads.js";

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis({ appendonly: true, appendfsync: "always" });
});
afterAll(async () => {
  await server?.stop();
});

/** A fresh connection that gives up at once while Redis is away (it is closed after each use). */
async function withAdmin<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 0 });
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** How many connections are subscribed to `channel`. */
function subscribersOf(channel: string): Promise<unknown> {
  return withAdmin(async (redis) => (await redis.pubsub("NUMSUB", channel))[1]);
}

/** A planned run (on 4 shards) whose `run-queued` alone is in the log, under a fresh prefix, and its settled channel. */
async function queuedRun(seed: string) {
  const prefix = uniqueKeyPrefix(seed);
  const keys = engineKeys(prefix);
  const [run] = planRuns({ count: 1, shards: 4, seed, endings: ["text"] });
  const runId = run!.runId;
  await withAdmin(async (redis) => {
    await createEventStore({ redis, prefix, shards: 4 }).appendEvents(runId, 0, [run!.events[0]!]);
  });
  return { prefix, keys, run: run!, runId, channel: keys.settledChannel(shardOfRunId(runId)) };
}

/** The result of `runId`, succeeded with `text`, created when `run` was queued. */
function succeeded(runId: string, createdAt: string, text: string): RunResult {
  return {
    runId,
    agent: "researcher",
    status: "succeeded",
    text,
    rootRunId: runId,
    attempts: 1,
    steps: 1,
    usage: { inputTokens: 1, outputTokens: 1 },
    createdAt,
  };
}

describe("the settled waiter", () => {
  it("reads again once its subscriber is back after a Redis restart, so a lost announcement does not leave it waiting", async () => {
    const { prefix, keys, run, runId, channel } = await queuedRun("waiter-restart");
    const reads = createRunReads({ connection: server.url, prefix, shards: 4 });
    try {
      // Far longer than the test may take: only a wake-up ends this wait in time.
      const waiting = reads.result(runId, { waitMs: 600_000 });
      await expect.poll(() => subscribersOf(channel)).toBe(1);

      // The run settles (its head, as the settling append leaves it) and its result is
      // stored, but its announcement is lost: nobody publishes it.
      const result: RunResult = {
        runId,
        agent: "researcher",
        status: "succeeded",
        text: "done",
        rootRunId: runId,
        attempts: 1,
        steps: 1,
        usage: { inputTokens: 1, outputTokens: 1 },
        createdAt: run!.events[0]!.at,
      };
      await withAdmin(async (redis) => {
        await redis.hset(keys.runHead(runId), "status", "succeeded");
        await redis.set(keys.result(runId), JSON.stringify(result));
      });
      await server.kill();
      await server.restart();

      expect(await waiting).toEqual(result);
    } finally {
      await reads.close();
    }
  });

  it("tells each announcement its subscriber hears on the settled-heard diagnostics channel", async () => {
    const { prefix, runId, channel } = await queuedRun("waiter-heard");
    const heard: SettledHeard[] = [];
    const onHeard = (message: unknown) => heard.push(message as SettledHeard);
    subscribe(SETTLED_HEARD_CHANNEL, onHeard);
    const reads = createRunReads({ connection: server.url, prefix, shards: 4 });
    try {
      const waiting = reads.result(runId, { waitMs: 300 });
      await expect.poll(() => subscribersOf(channel)).toBe(1);
      const publishedAt = performance.timeOrigin + performance.now();
      await withAdmin((redis) => redis.publish(channel, runId));
      await expect.poll(() => heard.map((message) => message.runId)).toEqual([runId]);
      expect(heard[0]?.heardAt).toBeGreaterThanOrEqual(publishedAt);
      // Nothing was stored: the wait reads again on the announcement, then times out.
      expect(await waiting).toBeUndefined();
    } finally {
      unsubscribe(SETTLED_HEARD_CHANNEL, onHeard);
      await reads.close();
    }
  });

  it("takes the result an announcement carried without reading it, and reads one it did not carry", async () => {
    const prefix = uniqueKeyPrefix("waiter-carried");
    const keys = engineKeys(prefix);
    const [carried, uncarried] = planRuns({
      count: 2,
      shards: 4,
      seed: "waiter-carried",
      endings: ["text"],
    });
    await withAdmin(async (redis) => {
      const store = createEventStore({ redis, prefix, shards: 4 });
      for (const run of [carried!, uncarried!])
        await store.appendEvents(run.runId, 0, [run.events[0]!]);
    });
    const channelOf = (runId: string) => keys.settledChannel(shardOfRunId(runId));
    const carriedResult = succeeded(carried!.runId, carried!.events[0]!.at, "carried");
    const storedResult = succeeded(uncarried!.runId, uncarried!.events[0]!.at, "stored");
    const reads = createRunReads({ connection: server.url, prefix, shards: 4 });
    try {
      const waitingResult = reads.result(carried!.runId, { waitMs: 600_000 });
      const waitingCollect = reads.collect([carried!.runId, uncarried!.runId], { waitMs: 600_000 });
      await expect.poll(() => subscribersOf(channelOf(carried!.runId))).toBe(1);
      await expect.poll(() => subscribersOf(channelOf(uncarried!.runId))).toBe(1);
      await withAdmin(async (redis) => {
        // Only the second run's result is stored: the first can only come from its announcement.
        await redis.set(keys.result(uncarried!.runId), storedResultJson(storedResult));
        await redis.publish(
          channelOf(carried!.runId),
          `${carried!.runId} \n${storedResultJson(carriedResult)}`,
        );
        // An announcement without a result, as an older collector sends: the waiter reads it.
        await redis.publish(channelOf(uncarried!.runId), uncarried!.runId);
      });

      expect(await waitingResult).toEqual(carriedResult);
      const collected = await waitingCollect;
      expect(collected.pending).toBe(0);
      expect(collected.results.map(({ runId, text }) => ({ runId, text }))).toEqual([
        { runId: carried!.runId, text: "carried" },
        { runId: uncarried!.runId, text: "stored" },
      ]);
    } finally {
      await reads.close();
    }
  });

  it("unsubscribes a channel once it lingered unused, counting from its last use, never while it is in use", async () => {
    const { keys, runId, channel } = await queuedRun("waiter-linger");
    const subscriber = new Redis(server.url);
    const waiter = createSettledWaiter(() => subscriber, keys);
    /** One wait on the run that ends at its first read. */
    const waitOnce = () =>
      waiter.waitUntil(
        [runId],
        600_000,
        async () => true,
        (done) => done,
      );
    // Only the waiter's timers are faked: the subscriber's commands run on real time.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      await waitOnce();
      expect(await subscribersOf(channel)).toBe(1);
      vi.advanceTimersByTime(SUBSCRIPTION_LINGER_MS * 0.6);
      await waitOnce();
      // Past the first use's linger, within the last one's: still subscribed.
      vi.advanceTimersByTime(SUBSCRIPTION_LINGER_MS * 0.6);
      expect(await subscribersOf(channel)).toBe(1);
      // In use while its linger runs out: still subscribed.
      let release: (() => void) | undefined;
      const held = waiter.waitUntil(
        [runId],
        600_000,
        () =>
          new Promise<boolean>((resolve) => {
            release = () => resolve(true);
          }),
        (done) => done,
      );
      while (release === undefined) await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(SUBSCRIPTION_LINGER_MS);
      expect(await subscribersOf(channel)).toBe(1);
      release?.();
      await held;
      vi.advanceTimersByTime(SUBSCRIPTION_LINGER_MS + 1);
      vi.useRealTimers();
      await expect.poll(() => subscribersOf(channel), { timeout: 30_000 }).toBe(0);
    } finally {
      vi.useRealTimers();
      await waiter.close();
    }
  });
});
