/**
 * Idempotency keys on real Redis, a single server and a 3-node Cluster: many
 * fires at once with one key make one run (the rest `deduplicated`), a run
 * whose firing process died before enqueueing it is enqueued by the next
 * fire under its key, a key lapses with its TTL, `fireMany` keys each spec on its own, and a fire
 * refused at preflight never uses a key up.
 */
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { Queue } from "bullmq";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { EngineKeys } from "../engine-keys.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import type { RedisConnection } from "../redis/connection.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import { createErrand, type Errand } from "./client.js";
import { DEFAULT_IDEMPOTENCY_TTL_MS } from "./fire-spec.js";

const it = engineTest("idempotency");

const CONCURRENT_FIRES = 100;

const spec = (idempotencyKey: string, input: unknown = null) => ({
  agent: TEST_AGENTS.plain,
  input,
  idempotencyKey,
});

it.beforeAll(async ({ fx }) => {
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: TEST_AGENTS.plain }], {
    queue: fx.queue.name,
  });
});

/**
 * Fires {@link CONCURRENT_FIRES} runs at once under one key, each through a
 * client of its own, and checks that exactly one made a run, whose job is
 * the only one in `queue`.
 */
async function expectOneRunFromConcurrentFires(clients: readonly Errand[], queue: Queue) {
  const key = `order-${Math.random()}`;
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT_FIRES }, (_, index) =>
      clients[index % clients.length]!.fire(spec(key, { index })),
    ),
  );
  const runIds = new Set(answers.map(({ runId }) => runId));
  expect(runIds.size).toBe(1);
  const deduplicated = answers.filter((answer) => answer.deduplicated === true);
  expect(deduplicated).toHaveLength(CONCURRENT_FIRES - 1);
  const [runId] = runIds;
  const job = await queue.getJob(runId!);
  expect(job?.id).toBe(runId);
  expect(await queue.count()).toBe(1);
  await queue.obliterate({ force: true });
}

async function registerOn(connection: RedisConnection, keys: EngineKeys, queue: string) {
  await registerTestQueue(connection, keys, [{ name: TEST_AGENTS.plain }], { queue });
}

describe("fire with an idempotency key", () => {
  it(`makes one run of ${CONCURRENT_FIRES} concurrent fires with one key, the other ${CONCURRENT_FIRES - 1} deduplicated`, async ({
    fx,
  }) => {
    const clients = Array.from({ length: 4 }, () =>
      createErrand({ connection: fx.server.url, prefix: fx.prefix }),
    );
    try {
      await expectOneRunFromConcurrentFires(clients, fx.queue);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("answers with the run fired before, whatever its spec, and writes nothing", async ({ fx }) => {
    const first = await fx.errand.fire(spec("repeated"));
    expect(first.deduplicated).toBeUndefined();
    const before = await fx.footprint();
    const again = await fx.errand.fire(spec("repeated", "another input"));
    expect(again).toEqual({ runId: first.runId, deduplicated: true });
    await fx.expectNothingWrittenSince(before);
    expect(await fx.redis.xlen(fx.errand.keys.runLog(first.runId))).toBe(1);
  });

  it("links and enqueues the run its key names when the fire that wrote it died before both", async ({
    fx,
  }) => {
    const { runId: parentRunId } = await fx.errand.fire(spec("a parent"));
    const child = { ...spec("a child of the parent"), parentRunId };
    const { runId } = await fx.errand.fire(child);
    const children = fx.errand.keys.children(parentRunId);
    // As if the firing process had died right after writing the child's run-queued.
    await (await fx.queue.getJob(runId))!.remove();
    await fx.redis.zrem(children, runId);
    const again = await fx.errand.fire(child);
    expect(again).toEqual({ runId, deduplicated: true });
    expect((await fx.queue.getJob(runId))?.id).toBe(runId);
    expect(await fx.redis.zrange(children, 0, -1)).toEqual([runId]);
    // Once its job is there, a fire under the key writes nothing again.
    const before = await fx.footprint();
    expect(await fx.errand.fire(child)).toEqual({ runId, deduplicated: true });
    await fx.expectNothingWrittenSince(before);
  });

  it("keeps a key for its TTL, 24 hours by default", async ({ fx }) => {
    const idempotencyKeys = () => fx.redis.keys(`${fx.prefix}:*:idempotency:*`);
    const before = new Set(await idempotencyKeys());
    await fx.errand.fire(spec("default-ttl"));
    const added = (await idempotencyKeys()).filter((key) => !before.has(key));
    expect(added).toHaveLength(1);
    const ttl = await fx.redis.pttl(added[0]!);
    expect(ttl).toBeGreaterThan(DEFAULT_IDEMPOTENCY_TTL_MS - 60 * 60 * 1_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_IDEMPOTENCY_TTL_MS);
  });

  it("fires a new run under a key whose TTL has lapsed", async ({ fx }) => {
    const first = await fx.errand.fire({ ...spec("lapsing"), idempotencyTtlMs: 500 });
    // Fires again until the key has lapsed: every deduplicated fire wrote nothing.
    for (;;) {
      const fired = await fx.errand.fire({ ...spec("lapsing"), idempotencyTtlMs: 500 });
      if (fired.deduplicated) {
        expect(fired.runId).toBe(first.runId);
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      expect(fired.runId).not.toBe(first.runId);
      break;
    }
  });

  it("keys each spec of fireMany on its own", async ({ fx }) => {
    const first = await fx.errand.fireMany([
      spec("many-a"),
      spec("many-b"),
      spec("many-a"),
      { agent: TEST_AGENTS.plain, input: null },
    ]);
    expect(first).toMatchObject({ total: 4, succeeded: 4, failed: 0 });
    const [a, b, aAgain, unkeyed] = first.results;
    expect(new Set([a?.runId, b?.runId, unkeyed?.runId]).size).toBe(3);
    expect(aAgain?.runId).toBe(a?.runId);
    expect([a, b, aAgain].filter((item) => item?.deduplicated === true)).toHaveLength(1);

    const second = await fx.errand.fireMany([spec("many-b"), spec("many-c")]);
    expect(second.results[0]).toEqual({ ok: true, runId: b?.runId, deduplicated: true });
    expect(second.results[1]?.deduplicated).toBeUndefined();
  });

  it("uses no key for a fire refused at preflight", async ({ fx }) => {
    const refused = await fx.errand.fire({ ...spec("refused"), agent: "nobody" }).catch((e) => e);
    expect(refused).toMatchObject({ code: "unknown_agent" });
    const tooBig = await fx.errand
      .fire({ ...spec("refused"), metadata: { ["k".repeat(1_000)]: "v" } })
      .catch((e) => e);
    expect(tooBig).toMatchObject({ code: "invalid_spec" });
    const batch = await fx.errand.fireMany([{ ...spec("refused"), agent: "nobody" }]);
    expect(batch.results[0]).toMatchObject({ ok: false, error: { code: "unknown_agent" } });

    const fired = await fx.errand.fire(spec("refused"));
    expect(fired.deduplicated).toBeUndefined();
  });

  it("refuses a TTL without a key, and keys or TTLs out of bounds", async ({ fx }) => {
    const cases = [
      { agent: TEST_AGENTS.plain, input: null, idempotencyTtlMs: 1_000 },
      { ...spec(""), input: null },
      { ...spec("x".repeat(513)) },
      { ...spec("ok"), idempotencyTtlMs: 31 * 24 * 60 * 60 * 1_000 },
      { ...spec("ok"), idempotencyTtlMs: 0 },
    ];
    for (const bad of cases) {
      const error = await fx.errand.fire(bad).catch((e) => e);
      expect(error).toMatchObject({ code: "invalid_spec" });
    }
  });
});

describe("fire with an idempotency key on a 3-node Redis Cluster", () => {
  let cluster: RedisClusterServer;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    client = new Cluster(cluster.nodes);
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it(`makes one run of ${CONCURRENT_FIRES} concurrent fires with one key, the other ${CONCURRENT_FIRES - 1} deduplicated`, async () => {
    const prefix = uniqueKeyPrefix("cluster-idempotency");
    const clients = Array.from({ length: 4 }, () => createErrand({ connection: client, prefix }));
    const queueName = queueOfAgents(prefix, [TEST_AGENTS.plain]);
    await registerOn(client, clients[0]!.keys, queueName);
    const queueConnection = client.duplicate();
    const queue = new Queue(queueName, {
      connection: queueConnection,
      prefix: clients[0]!.keys.bullmqPrefix,
    });
    try {
      await expectOneRunFromConcurrentFires(clients, queue);
    } finally {
      await queue.close();
      queueConnection.disconnect();
      await Promise.all(clients.map((opened) => opened.close()));
    }
  });
});
