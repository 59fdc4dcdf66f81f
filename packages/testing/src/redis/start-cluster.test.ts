import { isErrandError } from "@errand/core";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisClusterServer, startRedisCluster } from "../index.js";
import { uniqueKeyPrefix } from "../key-prefix.js";

describe("startRedisCluster", () => {
  let cluster: RedisClusterServer;
  let client: Cluster;
  const prefix = uniqueKeyPrefix("cluster");

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    client = new Cluster(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it("starts three masters on distinct loopback ports other than 6379", () => {
    expect(cluster.nodes).toHaveLength(3);
    const ports = cluster.nodes.map((node) => node.port);
    expect(new Set(ports).size).toBe(3);
    expect(ports).not.toContain(6379);
    expect(cluster.urls).toEqual(ports.map((port) => `redis://127.0.0.1:${port}`));
  });

  it("splits the slots between all masters", async () => {
    const slots = await client.cluster("SLOTS");
    const owners = new Set(slots.map(([, , master]) => master?.[1]));
    expect(owners).toEqual(new Set(cluster.nodes.map((node) => node.port)));
    const covered = slots.reduce((sum, [from, to]) => sum + (to - from + 1), 0);
    expect(covered).toBe(16384);
  });

  it("stores keys that land on different slots and nodes", async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `${prefix}:key-${i}`);
    for (const key of keys) await client.set(key, `value of ${key}`);
    for (const key of keys) expect(await client.get(key)).toBe(`value of ${key}`);

    const slotsUsed = new Set(
      await Promise.all(keys.map((key) => client.cluster("KEYSLOT", key) as Promise<number>)),
    );
    expect(slotsUsed.size).toBeGreaterThan(1);
  });

  it("runs a multi-key command on one hash tag and refuses one across slots", async () => {
    const tagged = [`${prefix}:{run-1}:a`, `${prefix}:{run-1}:b`];
    await client.mset(tagged[0]!, "1", tagged[1]!, "2");
    expect(await client.mget(...tagged)).toEqual(["1", "2"]);

    const spread = [`${prefix}:x-1`, `${prefix}:y-2`, `${prefix}:z-3`];
    await expect(client.mset(spread[0]!, "1", spread[1]!, "2", spread[2]!, "3")).rejects.toThrow(
      /CROSSSLOT|same slot/,
    );
  });
});

describe("startRedisCluster with replicas", () => {
  let cluster: RedisClusterServer;
  let client: Cluster;
  const prefix = uniqueKeyPrefix("failover");

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
    client = new Cluster(cluster.nodes);
    client.on("error", () => undefined);
  }, 90_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it("gives each master one replica", async () => {
    expect(cluster.nodes).toHaveLength(3);
    expect(cluster.replicas).toHaveLength(3);
    for (const node of cluster.nodes) {
      const master = new Redis(node.port, node.host);
      expect(await master.info("replication")).toMatch(/^connected_slaves:1\r?$/m);
      master.disconnect();
    }
  });

  it("promotes a SIGKILLed master's replica, which keeps the data, twice in a row", async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `${prefix}:key-${i}`);
    for (const key of keys) await client.set(key, `value of ${key}`);
    // WAIT on each master: every write reached its replica before the kill.
    for (const node of cluster.nodes) {
      const master = new Redis(node.port, node.host);
      await master.wait(1, 5_000);
      master.disconnect();
    }

    const first = await cluster.failOver(0);
    expect(cluster.replicas.map((node) => node.port)).toContain(first.promotedPort);
    const second = await cluster.failOver(1);
    expect(second.killedPort).not.toBe(first.killedPort);

    for (const key of keys) expect(await client.get(key)).toBe(`value of ${key}`);
    const masters = (await client.cluster("SLOTS")).map(([, , owner]) => owner?.[1]);
    expect(masters).toContain(first.promotedPort);
    expect(masters).toContain(second.promotedPort);
  }, 180_000);
});

describe("startRedisCluster options", () => {
  it("refuses fewer than three masters", async () => {
    const error = await startRedisCluster({ masters: 2 }).catch((caught: unknown) => caught);
    expect(isErrandError(error, "invalid_spec")).toBe(true);
  });
});
