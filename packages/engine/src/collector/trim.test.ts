import { uniqueKeyPrefix } from "@errand/testing";
import { describe, expect } from "vitest";
import { redisTest } from "../test-support/engine-test.js";
import { ensureGroup } from "./consumer-group.js";
import type { EngineRedisFixture } from "./test-support/redis-fixture.js";
import { trimAcknowledged } from "./trim.js";

const it = redisTest;

async function addEntries(
  fx: EngineRedisFixture,
  stream: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n += 1) ids.push((await fx.redis.xadd(stream, "*", "n", String(n)))!);
  return ids;
}

async function remainingIds(fx: EngineRedisFixture, stream: string): Promise<string[]> {
  return ((await fx.redis.xrange(stream, "-", "+")) as [string, string[]][]).map(([id]) => id);
}

async function deliver(
  fx: EngineRedisFixture,
  stream: string,
  group: string,
  count: number,
): Promise<void> {
  await fx.redis.xreadgroup("GROUP", group, "reader", "COUNT", count, "STREAMS", stream, ">");
}

describe("trimAcknowledged", () => {
  it("removes only entries before the first one a group has not acknowledged", async ({
    engineRedis: fx,
  }) => {
    const stream = `${uniqueKeyPrefix("trim")}:events`;
    await ensureGroup(fx.redis, stream, "collectors");
    const ids = await addEntries(fx, stream, 10);
    await deliver(fx, stream, "collectors", 6);
    await fx.redis.xack(stream, "collectors", ids[0]!, ids[1]!, ids[2]!, ids[4]!);

    // Entry 4 is delivered but pending: it and everything after it stay.
    expect(await trimAcknowledged(fx.redis, stream)).toBe(3);
    expect(await remainingIds(fx, stream)).toEqual(ids.slice(3));

    // Once 4 and 6 are acknowledged, entries up to the last delivered one go;
    // the undelivered 7 … 10 stay.
    await fx.redis.xack(stream, "collectors", ids[3]!, ids[5]!);
    expect(await trimAcknowledged(fx.redis, stream)).toBe(2);
    expect(await remainingIds(fx, stream)).toEqual(ids.slice(5));
  });

  it("waits for the slowest group", async ({ engineRedis: fx }) => {
    const stream = `${uniqueKeyPrefix("trim-groups")}:events`;
    await ensureGroup(fx.redis, stream, "fast");
    await ensureGroup(fx.redis, stream, "slow");
    const ids = await addEntries(fx, stream, 5);
    await deliver(fx, stream, "fast", 5);
    await fx.redis.xack(stream, "fast", ...ids);
    await deliver(fx, stream, "slow", 2);
    await fx.redis.xack(stream, "slow", ids[0]!);

    expect(await trimAcknowledged(fx.redis, stream)).toBe(1);
    expect(await remainingIds(fx, stream)).toEqual(ids.slice(1));
  });

  it("leaves a stream nobody reads alone", async ({ engineRedis: fx }) => {
    const stream = `${uniqueKeyPrefix("trim-none")}:events`;
    const ids = await addEntries(fx, stream, 3);
    expect(await trimAcknowledged(fx.redis, stream)).toBe(0);
    expect(await remainingIds(fx, stream)).toEqual(ids);
    expect(await trimAcknowledged(fx.redis, `${stream}:missing`)).toBe(0);
  });
});
