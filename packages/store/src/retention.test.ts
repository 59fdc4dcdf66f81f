import type { NewEvent } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "./event-store.js";
import {
  cancelled,
  cancelRequested,
  failed,
  finished,
  modelResponded,
  queued,
  started,
} from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

const RETENTION_SECONDS = 3_600;

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("retention", { retentionSeconds: RETENTION_SECONDS });
});
afterAll(async () => {
  await fx?.stop();
});

/** The TTLs of the run's log, head and blobs keys (-1: no expiry, -2: no key). */
async function ttls(runId: string): Promise<number[]> {
  const { runLog, runHead, runBlobs } = store.keys;
  return Promise.all([runLog, runHead, runBlobs].map((key) => fx.redis.ttl(key(runId))));
}

describe("retention", () => {
  const endings: [string, () => NewEvent[]][] = [
    ["finished", () => [finished("done")]],
    ["failed", () => [failed("timeout")]],
    ["cancelled", () => [cancelRequested(), cancelled()]],
  ];

  it.each(endings)("sets no TTL before the run settles, and one on %s", async (_, ending) => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), started(), modelResponded(1)]);
    await store.putBlob(runId, "a large tool result", "text/plain");
    await store.appendEvents(runId, "any", [cancelRequested()]);
    expect(await ttls(runId)).toEqual([-1, -1, -1]);

    await store.appendEvents(runId, 4, ending());
    for (const ttl of await ttls(runId)) {
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(RETENTION_SECONDS);
    }
  });

  it("gives a blob stored after the run settled the run's TTL", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued(), failed()]);
    expect(await fx.redis.exists(store.keys.runBlobs(runId))).toBe(0);

    await store.putBlob(runId, "late", "text/plain");
    const blobsTtl = await fx.redis.ttl(store.keys.runBlobs(runId));
    expect(blobsTtl).toBeGreaterThan(0);
    expect(blobsTtl).toBeLessThanOrEqual(RETENTION_SECONDS);
  });

  it("rewrites a settled log at its size: the same events and last id, far less memory", async () => {
    const runId = store.newRunId();
    const log = store.keys.runLog(runId);
    await store.appendEvents(runId, 0, [queued(), started(), modelResponded(1)]);
    const openBytes = Number(await fx.redis.memory("USAGE", log, "SAMPLES", "0"));
    const openEvents = await store.readLog(runId);

    await store.appendEvents(runId, 3, [finished("done")]);
    const settledBytes = Number(await fx.redis.memory("USAGE", log, "SAMPLES", "0"));
    expect(await store.readLog(runId)).toEqual([
      ...openEvents,
      expect.objectContaining({ seq: 4 }),
    ]);
    const info = (await fx.redis.xinfo("STREAM", log)) as unknown[];
    expect(info[info.indexOf("last-generated-id") + 1]).toBe("0-4");
    // Redis 7 allocates a new stream's node 4 KiB up front; one more event cannot explain
    // a settled log smaller than the open one, only the rewrite can.
    expect(settledBytes).toBeLessThan(openBytes);
    // The rewrite kept the log's TTL and left nothing behind.
    expect(await fx.redis.ttl(log)).toBeGreaterThan(0);
    expect(await fx.redis.exists(store.keys.runLogRewrite(runId))).toBe(0);
  });

  it("opens a child's log at its size, where a run without a parent keeps the 4 KiB node", async () => {
    const logBytes = (runId: string) =>
      fx.redis.memory("USAGE", store.keys.runLog(runId), "SAMPLES", "0").then(Number);
    const topRunId = store.newRunId();
    const childRunId = store.newRunId();
    await store.createRun(topRunId, queued());
    await store.createRun(childRunId, queued({ parentRunId: topRunId, depth: 1 }));

    // The same event but a parent, a few dozen bytes: only the rewrite explains kilobytes.
    expect(await logBytes(childRunId)).toBeLessThan((await logBytes(topRunId)) - 2_000);
    const info = (await fx.redis.xinfo("STREAM", store.keys.runLog(childRunId))) as unknown[];
    expect(info[info.indexOf("last-generated-id") + 1]).toBe("0-1");
    expect(await fx.redis.ttl(store.keys.runLog(childRunId))).toBe(-1);
    expect(await fx.redis.exists(store.keys.runLogRewrite(childRunId))).toBe(0);
    // It grows and settles as any log.
    await store.appendEvents(childRunId, 1, [started(), finished("done")]);
    expect((await store.readLog(childRunId)).map((event) => event.type)).toEqual([
      "run-queued",
      "run-started",
      "finished",
    ]);
  });
});
