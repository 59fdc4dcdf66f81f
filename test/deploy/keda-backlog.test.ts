/**
 * What the KEDA trigger of `infra/kubernetes/worker-scaledobject.yaml`
 * measures, on a real Redis with real workers: it reads the keys of the
 * workers' queue as KEDA's Redis scaler does (by the key's type: LLEN for a
 * list, ZCARD for a sorted set, 0 for no key) and adds them up as its
 * formula does. The runs to be done count whether they wait or run, over
 * every shard of a queue of several (one trio of triggers per shard); the
 * common `bull:<queue>:wait` recipe finds no key at all.
 */
import { createErrand, createWorker, type Errand, type ErrandWorker } from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import type { Agent } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BacklogKeys, backlogKeys, exampleAgents } from "./infra-files.js";

let server: RedisServer;
let redis: Redis;
let agents: Agent[];
const workers: ErrandWorker[] = [];
const clients: Errand[] = [];
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  redis = new Redis(server.url);
  agents = await exampleAgents();
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close({ graceMs: 0 })));
  await Promise.all(clients.map((client) => client.close()));
  redis?.disconnect();
  await server?.stop();
});

/** The length of `key` as KEDA's Redis scaler reads it: by the type of the key. */
async function lengthAsKedaReadsIt(key: string): Promise<number> {
  const type = await redis.type(key);
  if (type === "list") return redis.llen(key);
  if (type === "zset") return redis.zcard(key);
  if (type === "none") return 0;
  throw new Error(`${key} is a ${type}: the scaler does not count it`);
}

/** Each kind of trigger's value summed over the shards, and the formula's: all of them added up. */
async function backlog(
  shards: readonly BacklogKeys[],
): Promise<Record<keyof BacklogKeys | "total", number>> {
  const sum = async (kind: keyof BacklogKeys) =>
    (await Promise.all(shards.map((keys) => lengthAsKedaReadsIt(keys[kind])))).reduce(
      (total, length) => total + length,
      0,
    );
  const [waiting, prioritized, active] = await Promise.all([
    sum("waiting"),
    sum("prioritized"),
    sum("active"),
  ]);
  return { waiting, prioritized, active, total: waiting + prioritized + active };
}

/** A run of the example agent `scripted` that thinks for a minute (until cancelled). */
const SLOW = { script: [{ say: "Thinking…", sleepMs: 60_000 }, { say: "Done." }] };

/**
 * Fires 5 slow runs into the queue of `queueShards` shards while no worker
 * runs, then starts one with 2 slots per shard, and checks what the triggers read.
 */
async function measureBacklog(queueShards: number) {
  const prefix = uniqueKeyPrefix(`keda-${queueShards}`);
  const errand = createErrand({ connection: server.url, prefix });
  clients.push(errand);
  const shards = backlogKeys(
    prefix,
    agents.map((agent) => agent.name),
    queueShards,
  );
  const options = { connection: server.url, prefix, agents, logger, queueShards };
  // A worker registers the queue (registrations outlive it), then leaves: runs wait.
  const registering = await createWorker(options);
  await registering.close({ graceMs: 0 });
  const runIds: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    runIds.push((await errand.fire({ agent: "scripted", input: SLOW })).runId);
  }
  expect(await backlog(shards)).toMatchObject({ waiting: 5, prioritized: 0, active: 0, total: 5 });
  const queue = shards[0]!.waiting.split(":").slice(-2, -1)[0];
  expect(await redis.type(`bull:${queue}:wait`)).toBe("none");

  // Slots: runs move from wait to active, and the total stays 5.
  const slots = 2 * queueShards;
  workers.push(await createWorker({ ...options, concurrency: slots }));
  const running = await waitUntil(
    async () => {
      const now = await backlog(shards);
      return now.active > 0 && now.total === 5 && now.waiting === 5 - now.active ? now : undefined;
    },
    { timeoutMs: 20_000 },
  );
  expect(running?.total).toBe(5);

  for (const runId of runIds) await errand.cancel(runId, { reason: "measured" });
  const drained = await waitUntil(
    async () => ((await backlog(shards)).total === 0 ? true : undefined),
    { timeoutMs: 20_000 },
  );
  expect(drained).toBe(true);
}

describe("the KEDA trigger's keys", () => {
  it("count every run to be done, waiting or running; bull:<queue>:wait counts nothing", async () => {
    await measureBacklog(1);
  });

  it("count every run to be done over every shard of a queue of 3 shards", async () => {
    await measureBacklog(3);
  });
});
