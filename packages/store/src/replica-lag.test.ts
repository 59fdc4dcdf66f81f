/**
 * Replica lag, forced: on a real Redis Cluster of 3 masters and 3 replicas,
 * one master's replica is cut off (its link killed, and kept from coming
 * back by a wrong `masterauth`), terminal events are appended to runs on
 * that master, and the master is SIGKILLed so that its stale replica is
 * promoted. An append acknowledged with the default durability is then lost;
 * with `durability: "replicated"` an append is acknowledged only once the
 * replica has it — so it survives — and while the replica lags the append is
 * refused (retryable), never acknowledged and lost.
 */
import { randomBytes } from "node:crypto";
import { isErrandError, newRunId } from "@errand/core";
import { RUN_ID_RANDOM_BYTES } from "@errand/core/ops";
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createEventStore, type EventStore } from "./event-store.js";
import { finished, modelResponded, queued, started } from "./test-support/events.js";

const CLUSTER_STARTUP_MS = 90_000;

let cluster: RedisClusterServer;
let client: Cluster;
const admins: Redis[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 3_000 });
  client = new Cluster(cluster.nodes);
}, CLUSTER_STARTUP_MS);
afterAll(async () => {
  client?.disconnect();
  for (const admin of admins) admin.disconnect();
  await cluster?.stop();
}, CLUSTER_STARTUP_MS);

function admin(node: { host: string; port: number }): Redis {
  const connection = new Redis(node.port, node.host);
  admins.push(connection);
  return connection;
}

/** The port of the master that owns `key`. */
async function ownerOf(key: string): Promise<number> {
  const slot = (await client.cluster("KEYSLOT", key)) as number;
  const slots = await client.cluster("SLOTS");
  return slots.find(([from, to]) => from <= slot && slot <= to)![2]![1];
}

/** A new run of `store` whose keys live on the master at `port`, started and answered once. */
async function startedRunOn(store: EventStore, port: number): Promise<string> {
  for (;;) {
    const shard = randomBytes(1)[0]! % store.shards;
    const runId = newRunId({ shard, nowMs: Date.now(), random: randomBytes(RUN_ID_RANDOM_BYTES) });
    if ((await ownerOf(store.keys.runLog(runId))) !== port) continue;
    await store.appendEvents(runId, 0, [queued(), started(), modelResponded(1)]);
    return runId;
  }
}

/** The replica of the master at `port`. */
async function replicaOf(port: number): Promise<Redis> {
  for (const node of cluster.replicas) {
    const replica = admin(node);
    if ((await replica.info("replication")).includes(`master_port:${port}\r\n`)) return replica;
  }
  throw new Error(`no replica of ${port}`);
}

/** Whether the run's log holds a terminal event. */
async function isSettled(store: EventStore, runId: string): Promise<boolean> {
  const log = await store.readLog(runId);
  return log.some((event) => event.type === "finished");
}

describe("replica lag forced, then a failover", () => {
  it('loses an acknowledged terminal append by default; with durability "replicated" it survives or is refused', async () => {
    const prefix = uniqueKeyPrefix("replica-lag");
    const acknowledged = createEventStore({ redis: client, prefix });
    const replicated = createEventStore({
      redis: client,
      prefix,
      durability: "replicated",
      replicationTimeoutMs: 3_000,
    });
    const victim = cluster.nodes[0]!;
    const survivor = await startedRunOn(acknowledged, victim.port);
    const lost = await startedRunOn(acknowledged, victim.port);
    const refused = await startedRunOn(acknowledged, victim.port);

    // In sync: acknowledged once the replica has it.
    await replicated.appendEvents(survivor, 3, [finished()]);

    // The replica falls behind: its link is cut and cannot come back.
    const replica = await replicaOf(victim.port);
    await replica.config("SET", "masterauth", "not-the-masters-password");
    const master = admin(victim);
    await master.client("KILL", "TYPE", "replica");
    await vi.waitFor(
      async () => expect(await master.info("replication")).toMatch(/^connected_slaves:0\r$/m),
      { timeout: 10_000, interval: 50 },
    );

    await acknowledged.appendEvents(lost, 3, [finished()]);
    const error = await replicated.appendEvents(refused, 3, [finished()]).catch((e: unknown) => e);
    expect(isErrandError(error, "redis_unavailable")).toBe(true);
    expect((error as { retryable: boolean }).retryable).toBe(true);
    // Both are on the master for now.
    expect(await isSettled(acknowledged, lost)).toBe(true);
    expect(await isSettled(acknowledged, refused)).toBe(true);

    master.disconnect();
    const failover = await cluster.failOver(0);
    expect(failover.killedPort).toBe(victim.port);

    expect(await isSettled(acknowledged, survivor)).toBe(true);
    // Acknowledged, then lost with the master: what "replicated" durability prevents.
    expect(await isSettled(acknowledged, lost)).toBe(false);
    // Gone too, but it was never acknowledged: its writer was told to retry.
    expect(await isSettled(acknowledged, refused)).toBe(false);
  }, 180_000);
});
