/**
 * The settled waiter across a Redis restart: an announcement published while
 * its subscriber is away is lost, so once it is back every waiter reads again.
 * Each announcement its subscriber hears is told on a diagnostics channel.
 * Its own `redis-server` (append-only file on, so the restart keeps the data).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { RunResult } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { createEventStore } from "@errand/store";
import { SETTLED_HEARD_CHANNEL, type SettledHeard } from "@errand/store/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
});
