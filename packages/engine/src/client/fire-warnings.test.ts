/**
 * A fire of an agent no live worker runs is accepted, queued, and answered
 * with the `no_live_worker` warning saying since when (of the pinned version
 * when one is pinned), by `fire` and per item by `fireMany`; an agent with a
 * live worker, and a deduplicated fire, get none. The warning is read from
 * the registrations preflight reads anyway: a fire issues as many Redis
 * commands with it as without it.
 */
import type { Redis } from "ioredis";
import { describe, expect } from "vitest";
import { engineKeys } from "../engine-keys.js";
import { createLogger } from "../logger.js";
import { readQueueBacklog } from "../queues/queue-backlog.js";
import { redisTest } from "../test-support/engine-test.js";
import { registerTestQueue, type TestAgentRecord } from "../test-support/registered-queue.js";
import { createErrand, type Errand } from "./client.js";

/** The client's clock: every liveness is judged at this instant. */
const NOW = new Date("2026-12-06T00:10:00.000Z");
/** A heartbeat of 5 s: a worker is live for 15 s after its last beat. */
const HEARTBEAT_MS = 5_000;
/** A beat of a live worker, and one of a worker gone. */
const JUST_NOW = "2026-12-06T00:09:58.000Z";
const AT_00_04 = "2026-12-06T00:04:00.000Z";
const input = { script: [{ say: "hi" }] };

/** What a test works with: a client whose clock is stopped at {@link NOW}, and a plain Redis client. */
interface Scope {
  errand: Errand;
  redis: Redis;
}

const it = redisTest.extend("scope", { scope: "file" }, async ({ engineRedis }, { onCleanup }) => {
  const errand = createErrand({
    connection: engineRedis.url,
    prefix: engineRedis.prefixed("fire-warnings").prefix,
    now: () => NOW,
    logger: createLogger({ level: "silent" }),
  });
  onCleanup(() => errand.close());
  return { errand, redis: engineRedis.redis } satisfies Scope;
});

/** Registers `records` as run by one queue whose worker last beat at `lastSeenAt`; resolves with the queue. */
function register(
  { errand, redis }: Scope,
  records: TestAgentRecord[],
  lastSeenAt: string,
): Promise<string> {
  return registerTestQueue(redis, errand.keys, records, { lastSeenAt, heartbeatMs: HEARTBEAT_MS });
}

function noLiveWorker(message: string) {
  return [{ code: "no_live_worker", message }];
}

/** The runs waiting in `queue`. */
async function waitingIn({ errand, redis }: Scope, queue: string): Promise<number> {
  return (await readQueueBacklog(redis, engineKeys(errand.keys.prefix), queue)).waiting;
}

/** Every command Redis ran so far, `INFO` itself left out (`INFO commandstats`). */
async function commandsRun(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  return [...info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)]
    .filter(([, name]) => name !== "info")
    .reduce((sum, [, , calls]) => sum + Number(calls), 0);
}

describe("fire's no_live_worker warning", () => {
  it("warns of a run whose agent's last worker beat long ago, and queues the run all the same", async ({
    scope,
  }) => {
    const queue = await register(scope, [{ name: "greeter" }], AT_00_04);
    const fired = await scope.errand.fire({ agent: "greeter", input });
    expect(fired).toEqual({
      runId: fired.runId,
      warnings: noLiveWorker(
        "no live worker for greeter since 00:04 UTC: the run waits until one starts",
      ),
    });
    expect(await waitingIn(scope, queue)).toBe(1);
  });

  it("says nothing of a run whose agent has a live worker", async ({ scope }) => {
    await register(scope, [{ name: "live-greeter" }], JUST_NOW);
    const fired = await scope.errand.fire({ agent: "live-greeter", input });
    expect(fired).toEqual({ runId: fired.runId });
  });

  it("dates a worker gone before today, and dates a closed one by when it closed", async ({
    scope,
  }) => {
    await register(scope, [{ name: "yesterday" }], "2026-12-05T23:58:00.000Z");
    const yesterday = await scope.errand.fire({ agent: "yesterday", input });
    expect(yesterday.warnings).toEqual(
      noLiveWorker(
        "no live worker for yesterday since 2026-12-05 23:58 UTC: the run waits until one starts",
      ),
    );
    // Its last beat was just now, but it closed since: nobody runs it.
    await register(scope, [{ name: "closed", stoppedAt: "2026-12-06T00:09:59.000Z" }], JUST_NOW);
    const closed = await scope.errand.fire({ agent: "closed", input });
    expect(closed.warnings).toEqual(
      noLiveWorker("no live worker for closed since 00:09 UTC: the run waits until one starts"),
    );
  });

  it("names the pinned version whose workers are gone, while the newest runs", async ({
    scope,
  }) => {
    await register(
      scope,
      [{ name: "versioned", version: "v1", startedAt: "2026-12-06T00:00:00.000Z" }],
      AT_00_04,
    );
    await register(
      scope,
      [{ name: "versioned", version: "v2", startedAt: "2026-12-06T00:05:00.000Z" }],
      JUST_NOW,
    );
    const pinned = await scope.errand.fire({ agent: "versioned", agentVersion: "v1", input });
    expect(pinned.warnings).toEqual(
      noLiveWorker(
        "no live worker for versioned@v1 since 00:04 UTC: the run waits until one starts",
      ),
    );
    const newest = await scope.errand.fire({ agent: "versioned", input });
    expect(newest.warnings).toBeUndefined();
  });

  it("warns per item in fireMany, and not of a deduplicated fire", async ({ scope }) => {
    await register(scope, [{ name: "batch-gone" }], AT_00_04);
    await register(scope, [{ name: "batch-live" }], JUST_NOW);
    const first = await scope.errand.fire({
      agent: "batch-gone",
      input,
      idempotencyKey: "fire-warnings-once",
    });
    expect(first.warnings).toHaveLength(1);
    const batch = await scope.errand.fireMany([
      { agent: "batch-gone", input },
      { agent: "batch-live", input },
      { agent: "batch-gone", input, idempotencyKey: "fire-warnings-once" },
    ]);
    expect(batch.results).toEqual([
      {
        ok: true,
        runId: expect.any(String),
        warnings: noLiveWorker(
          "no live worker for batch-gone since 00:04 UTC: the run waits until one starts",
        ),
      },
      { ok: true, runId: expect.any(String) },
      { ok: true, runId: first.runId, deduplicated: true },
    ]);
    const again = await scope.errand.fire({
      agent: "batch-gone",
      input,
      idempotencyKey: "fire-warnings-once",
    });
    expect(again).toEqual({ runId: first.runId, deduplicated: true });
  });

  it("costs no Redis command: a fire that warns runs as many as one that does not", async ({
    scope,
  }) => {
    await register(scope, [{ name: "count-gone" }], AT_00_04);
    await register(scope, [{ name: "count-live" }], JUST_NOW);
    /** The commands one fire of `agent` makes Redis run, after a first fire warmed its scripts. */
    const commandsOfFire = async (agent: string) => {
      await scope.errand.fire({ agent, input });
      const before = await commandsRun(scope.redis);
      const fired = await scope.errand.fire({ agent, input });
      return {
        warned: fired.warnings !== undefined,
        commands: (await commandsRun(scope.redis)) - before,
      };
    };
    const gone = await commandsOfFire("count-gone");
    const live = await commandsOfFire("count-live");
    expect(gone.warned).toBe(true);
    expect(live.warned).toBe(false);
    expect(live.commands).toBeGreaterThan(0);
    expect(gone.commands).toBe(live.commands);
  });
});
