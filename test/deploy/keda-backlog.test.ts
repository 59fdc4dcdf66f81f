/**
 * What the KEDA trigger of `infra/kubernetes/worker-scaledobject.yaml`
 * measures, on a real Redis with real workers: it reads the keys of the
 * workers' queue as KEDA's Redis scaler does (by the key's type: LLEN for a
 * list, ZCARD for a sorted set, 0 for no key) and adds them up as its
 * formula does. The runs to be done count whether they wait or run; the
 * common `bull:<queue>:wait` recipe finds no key at all.
 */
import {
  createErrand,
  createLogger,
  createWorker,
  type Errand,
  type ErrandWorker,
} from "@errand/engine";
import type { Agent } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BacklogKeys, backlogKeys, exampleAgents } from "./infra-files.js";

const prefix = uniqueKeyPrefix("keda");
let server: RedisServer;
let redis: Redis;
let errand: Errand;
let agents: Agent[];
let keys: BacklogKeys;
const workers: ErrandWorker[] = [];
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  redis = new Redis(server.url);
  errand = createErrand({ connection: server.url, prefix });
  agents = await exampleAgents();
  keys = backlogKeys(
    prefix,
    agents.map((agent) => agent.name),
  );
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close({ graceMs: 0 })));
  await errand?.close();
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

/** Each trigger's value, and the formula's: waiting + prioritized + active. */
async function backlog(): Promise<Record<keyof BacklogKeys | "total", number>> {
  const [waiting = 0, prioritized = 0, active = 0] = await Promise.all(
    [keys.waiting, keys.prioritized, keys.active].map(lengthAsKedaReadsIt),
  );
  return { waiting, prioritized, active, total: waiting + prioritized + active };
}

/** A run of the example agent `scripted` that thinks for a minute (until cancelled). */
const SLOW = { script: [{ say: "Thinking…", sleepMs: 60_000 }, { say: "Done." }] };

describe("the KEDA trigger's keys", () => {
  it("count every run to be done, waiting or running; bull:<queue>:wait counts nothing", async () => {
    // A worker registers the queue (registrations outlive it), then leaves: runs wait.
    const registering = await createWorker({ connection: server.url, prefix, agents, logger });
    await registering.close({ graceMs: 0 });
    const runIds: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      runIds.push((await errand.fire({ agent: "scripted", input: SLOW })).runId);
    }
    expect(await backlog()).toMatchObject({ waiting: 5, prioritized: 0, active: 0, total: 5 });
    const queue = keys.waiting.split(":").slice(-2, -1)[0];
    expect(await redis.type(`bull:${queue}:wait`)).toBe("none");

    // Two slots: two runs move from wait to active, and the total stays 5.
    workers.push(
      await createWorker({ connection: server.url, prefix, agents, concurrency: 2, logger }),
    );
    const running = await waitUntil(
      async () => {
        const now = await backlog();
        return now.active === 2 ? now : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(running).toMatchObject({ waiting: 3, prioritized: 0, active: 2, total: 5 });

    for (const runId of runIds) await errand.cancel(runId, { reason: "measured" });
    const drained = await waitUntil(
      async () => ((await backlog()).total === 0 ? true : undefined),
      { timeoutMs: 20_000 },
    );
    expect(drained).toBe(true);
  });
});
