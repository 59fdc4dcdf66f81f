/**
 * A Redis Cluster of 3 masters, each with a replica, for one test file that
 * fails masters over (started before its tests, stopped after them), and
 * what such a test asks of its nodes. Test-only: not exported.
 */
import { type RedisClusterServer, startRedisCluster } from "@errand/testing";
import { type Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, expect, vi } from "vitest";

/** A node's address. */
type Node = { host: string; port: number };

/** The cluster, and the connection string of every node, set once the file's `beforeAll` ran. */
export interface ReplicatedClusterFixture {
  cluster: RedisClusterServer;
  /** `redis+cluster://` naming every node, masters and replicas. */
  url: string;
}

/** Starts the cluster (`cluster-node-timeout` 2 s) before the file's tests and stops it after them. */
export function useReplicatedCluster(): ReplicatedClusterFixture {
  const fixture = {} as ReplicatedClusterFixture;
  beforeAll(async () => {
    fixture.cluster = await startRedisCluster({
      masters: 3,
      replicasPerMaster: 1,
      nodeTimeoutMs: 2_000,
    });
    const nodes = [...fixture.cluster.nodes, ...fixture.cluster.replicas];
    fixture.url = `redis+cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(",")}`;
  }, 90_000);
  afterAll(async () => {
    await fixture.cluster?.stop();
  }, 90_000);
  return fixture;
}

/** What `ask` answers on a connection of its own to `node`. */
export async function askNode<T>(node: Node, ask: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(node.port, node.host, { lazyConnect: true });
  try {
    return await ask(redis);
  } finally {
    redis.disconnect();
  }
}

/** How many WAITs every node of `cluster` answered so far (a restarted node counts from 0). */
export async function waitCalls(cluster: RedisClusterServer): Promise<number> {
  let calls = 0;
  for (const node of [...cluster.nodes, ...cluster.replicas]) {
    const info = await askNode(node, (redis) => redis.info("commandstats"));
    calls += Number(/^cmdstat_wait:calls=(\d+)/m.exec(info)?.[1] ?? 0);
  }
  return calls;
}

/** The node of `cluster` that replicates the master at `port`. */
async function replicaOf(cluster: RedisClusterServer, port: number): Promise<Node> {
  for (const node of [...cluster.nodes, ...cluster.replicas]) {
    const info = await askNode(node, (redis) => redis.info("replication"));
    if (info.includes(`master_port:${port}\r\n`)) return node;
  }
  throw new Error(`no replica of ${port}`);
}

/** The port of the master that owns `key`'s slot now, as `client` is told. */
export async function masterPortOf(client: Cluster, key: string): Promise<number> {
  const slot = (await client.cluster("KEYSLOT", key)) as number;
  const slots = await client.cluster("SLOTS");
  return slots.find(([from, to]) => from <= slot && slot <= to)![2]![1];
}

/**
 * Cuts the replica of the master `master` off: its link is killed and kept
 * from coming back by a wrong `masterauth`, so the master's writes from now
 * on reach no replica. Resolves once the master has no replica, with what
 * lets the replica back in (it reconnects and catches up on its own).
 */
export async function cutReplicaOff(
  cluster: RedisClusterServer,
  master: Node,
): Promise<() => Promise<void>> {
  const replica = await replicaOf(cluster, master.port);
  const [, masterauth = ""] = (await askNode(replica, (redis) =>
    redis.config("GET", "masterauth"),
  )) as string[];
  await askNode(replica, (redis) => redis.config("SET", "masterauth", "not-the-masters-password"));
  await askNode(master, (redis) => redis.client("KILL", "TYPE", "replica"));
  await vi.waitFor(
    async () =>
      expect(await askNode(master, (redis) => redis.info("replication"))).toMatch(
        /^connected_slaves:0\r$/m,
      ),
    { timeout: 10_000, interval: 50 },
  );
  return async () => {
    await askNode(replica, (redis) => redis.config("SET", "masterauth", masterauth));
  };
}
