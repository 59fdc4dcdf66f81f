/**
 * Retention has one source: the writer that settles a run gives its log,
 * head and blobs their TTL, and the result the collector stores (with the
 * run's children) expires with them. The collector here is given a
 * retention as short as the short-lived client's, so its own setting cannot
 * cut a result short either: a run settled with the default retention keeps
 * its result as long as its head. A run settled with a short retention is
 * never left reading `pending` with its result gone while its head lives:
 * once the head expires, the run is `not_found`.
 */
import { isErrandError } from "@errand/core";
import { waitUntil } from "@errand/testing";
import { afterAll, describe, expect } from "vitest";
import { createErrand, type Errand } from "../client/client.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { type Collector, createCollector } from "./create-collector.js";

const it = engineTest("retention");

const SHORT_RETENTION_SECONDS = 2;

let shortLived: Errand;
let collector: Collector;

it.beforeAll(async ({ fx }) => {
  // Registered, with no worker: the runs wait in their queue until cancelled.
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "idle" }]);
  shortLived = createErrand({
    connection: fx.server.url,
    prefix: fx.prefix,
    retentionSeconds: SHORT_RETENTION_SECONDS,
  });
  // A collector keeping runs as briefly as `shortLived`: what it stores must still follow each run's log.
  collector = createCollector({
    connection: fx.server.url,
    prefix: fx.prefix,
    blockMs: 100,
    retentionSeconds: SHORT_RETENTION_SECONDS,
  });
  await collector.start();
});
afterAll(async () => {
  await collector?.stop();
  await shortLived?.close();
});

/** The remaining TTL of `key` in ms. */
const pttl = (fx: EngineFixture, key: string) => fx.redis.pttl(key);

describe("a settled run's outcome", () => {
  it("expires with its log, at the retention of whoever settled it", async ({ fx }) => {
    const { runId: long } = await fx.errand.fire({ agent: "idle", input: null });
    const { runId: short } = await fx.errand.fire({ agent: "idle", input: null });
    await fx.errand.cancel(long); // settled by a client with the default retention
    await shortLived.cancel(short); // settled by a client that keeps runs 2 s
    const { keys } = fx.errand;
    for (const runId of [long, short]) {
      expect(await fx.errand.result(runId, { waitMs: 10_000 })).toMatchObject({
        status: "cancelled",
      });
    }
    const [longHead, longResult] = await Promise.all([
      pttl(fx, keys.runHead(long)),
      pttl(fx, keys.result(long)),
    ]);
    // Not the collector's 2 s: the 7 days of the client that settled it, as its head.
    expect(longResult).toBeGreaterThan(SHORT_RETENTION_SECONDS * 1_000);
    expect(longHead - longResult).toBeLessThan(60_000);
    expect(longResult).toBeLessThanOrEqual(longHead);
    const [shortHead, shortResult] = await Promise.all([
      pttl(fx, keys.runHead(short)),
      pttl(fx, keys.result(short)),
    ]);
    expect(shortResult).toBeGreaterThan(0);
    expect(shortResult).toBeLessThanOrEqual(SHORT_RETENTION_SECONDS * 1_000);
    expect(shortResult).toBeLessThanOrEqual(shortHead);
    // To the millisecond: the expiry the settling append set on the head (its shard entry's).
    for (const runId of [long, short]) {
      expect(await fx.redis.pexpiretime(keys.result(runId))).toBe(
        await fx.redis.pexpiretime(keys.runHead(runId)),
      );
    }
  });

  it("is never pending once settled: when its log expires, the run is not found", async ({
    fx,
  }) => {
    const { runId } = await fx.errand.fire({ agent: "idle", input: null });
    await shortLived.cancel(runId);
    expect(await fx.errand.result(runId, { waitMs: 10_000 })).toMatchObject({
      status: "cancelled",
    });
    const { keys } = fx.errand;
    const expired = await waitUntil(
      async () => {
        // The result first: both expire at one instant, so a head read after
        // its result cannot be there when the result is gone.
        const result = await fx.redis.exists(keys.result(runId));
        const head = await fx.redis.exists(keys.runHead(runId));
        // Never a head without its result: that is a run reading `pending` for good.
        expect(result).toBeGreaterThanOrEqual(head);
        return head === 0 ? true : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(expired).toBe(true);
    const refused = await fx.errand.result(runId).catch((error: unknown) => error);
    expect(isErrandError(refused, "not_found")).toBe(true);
    const batch = await fx.errand.collect([runId]);
    expect(batch.results[0]?.status).toBe("not_found");
  });
});
