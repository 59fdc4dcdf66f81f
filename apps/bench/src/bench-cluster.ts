/**
 * The benches' own Redis Cluster: 3 masters started for the bench (never the
 * Redis of `REDIS_URL`), a command connection to each, and the target errand's
 * parts run on there — 48 run shards, and the worker's queue in as many
 * shards as asked — plus which master holds which shard. `bench --cluster`,
 * `--scaling` and `--fan-out N --cluster` all start it.
 */
import { engineKeys, shardsOfQueue } from "@errand/engine";
import { queueOfAgents } from "@errand/engine/ops";
import { type RedisClusterServer, startRedisCluster } from "@errand/local-redis";
import { Redis } from "ioredis";
import { BENCH_AGENT } from "./bench-agent.js";
import type { BenchTarget } from "./errand-stack.js";

/** How many masters the bench's cluster has. */
export const CLUSTER_BENCH_MASTERS = 3;

/**
 * Run shards on both sides: a multiple of the queue shards, and a count whose
 * `{sN}` tags spread evenly over 3 masters owning equal slot ranges (17/15/16
 * of them; the default 16 splits 6/4/6).
 */
export const CLUSTER_BENCH_SHARDS = 48;

/** A cluster started for a bench. */
export interface BenchCluster {
  /** `host:port` of every master, in the order of {@link admins}. */
  nodes: string[];
  /** A command connection of the bench's own to each master. */
  admins: Redis[];
  /** Where errand's parts run: the cluster's URL, 48 run shards, the worker's queue in `queueShards` shards. */
  target(queueShards: number): BenchTarget;
  /** Which master (index of {@link nodes}) serves `key`'s slot. */
  masterOfKey(key: string): Promise<number>;
  /** Closes the connections, stops every node and removes their files. */
  stop(): Promise<void>;
}

/** The `redis+cluster://` URL of `cluster`'s masters. */
function clusterUrl(cluster: RedisClusterServer): string {
  return `redis+cluster://${cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(",")}`;
}

/** Starts a {@link CLUSTER_BENCH_MASTERS}-master cluster and connects to each master. */
export async function startBenchCluster(): Promise<BenchCluster> {
  const cluster = await startRedisCluster({ masters: CLUSTER_BENCH_MASTERS });
  const admins = cluster.nodes.map((node) => new Redis({ ...node, maxRetriesPerRequest: null }));
  const masterOfKey = async (key: string): Promise<number> => {
    const slot = (await admins[0]!.cluster("KEYSLOT", key)) as number;
    const ranges = await admins[0]!.cluster("SLOTS");
    const owner = ranges.find(([low, high]) => slot >= low && slot <= high)?.[2];
    return cluster.nodes.findIndex(({ port }) => port === owner?.[1]);
  };
  return {
    nodes: cluster.nodes.map(({ host, port }) => `${host}:${port}`),
    admins,
    target: (queueShards) => ({
      url: clusterUrl(cluster),
      durability: "acknowledged",
      shards: CLUSTER_BENCH_SHARDS,
      queueShards,
    }),
    masterOfKey,
    async stop() {
      for (const admin of admins) admin.disconnect();
      await cluster.stop();
    },
  };
}

/**
 * How many of the shards of the queue of a worker running `agents` (default
 * the bench agent alone), in `queueShards` shards, each master of `cluster` holds.
 */
export async function queueShardsPerMaster(
  cluster: BenchCluster,
  queueShards: number,
  agents: readonly string[] = [BENCH_AGENT],
): Promise<number[]> {
  const keys = engineKeys();
  const counts = cluster.nodes.map(() => 0);
  for (const shard of shardsOfQueue(keys, queueOfAgents(keys.prefix, agents, queueShards))) {
    const index = await cluster.masterOfKey(`${shard.prefix}:${shard.name}`);
    if (index >= 0) counts[index]! += 1;
  }
  return counts;
}
