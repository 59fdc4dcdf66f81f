/**
 * `startRedisCluster`: a real Redis Cluster of N masters (and optionally
 * their replicas) on loopback, for proving that every multi-key script keeps
 * to one hash tag and that a master's failover loses nothing it must not.
 */
import { ErrandError } from "@errand/core";
import { failOverMaster, type MasterFailover, readTopology } from "./cluster-topology.js";
import { findFreePort } from "./free-port.js";
import { findOnPath, type LaunchedRedis, launchLocalRedis } from "./launch-local.js";
import { redisConfigArgs } from "./redis-server.js";
import { type RedisAddress, sendRedisCommand } from "./resp.js";
import { runCommand } from "./run-command.js";
import { waitUntil } from "./wait-until.js";

const CLUSTER_READY_TIMEOUT_MS = 30_000;

/** How long a node may be unreachable before the others fail it (`cluster-node-timeout`), by default. */
const DEFAULT_NODE_TIMEOUT_MS = 5_000;

/** A running Redis Cluster. */
export interface RedisClusterServer {
  /** Every master as started, ready for `new Cluster(nodes)` (ioredis). */
  nodes: { host: string; port: number }[];
  /** `redis://host:port` of every master, in the order of `nodes`. */
  urls: string[];
  /** Every replica as started (none unless `replicasPerMaster` was given). */
  replicas: { host: string; port: number }[];
  /**
   * SIGKILLs a master that has a replica (the `choose`-th of those, modulo
   * their number; default the first), waits until its replica is promoted
   * and the cluster is `cluster_state:ok`, then starts the killed node again,
   * which rejoins as a replica: the cluster can fail over again. Needs
   * `replicasPerMaster` of at least 1. Masters change with each failover, so
   * `nodes` and `stopMaster` index the masters as started.
   */
  failOver(choose?: number): Promise<MasterFailover>;
  /**
   * Shuts master `index` (of `nodes`) down, as a crash of its process would,
   * keeping its port, directory and cluster config for {@link startMaster}.
   */
  stopMaster(index: number): Promise<void>;
  /** Starts master `index` again on its port and directory; resolves once every node reports `cluster_state:ok`. */
  startMaster(index: number): Promise<void>;
  /** Shuts every node down and removes their directories. */
  stop(): Promise<void>;
}

/** Options of {@link startRedisCluster}. */
export interface StartRedisClusterOptions {
  /** How many masters (no replicas); at least 3, as Redis Cluster requires. Default 3. */
  masters?: number;
  /** Replicas of each master. Default 0. */
  replicasPerMaster?: number;
  /** Turn on each node's append-only file, so that a master restarted keeps its data. */
  appendonly?: boolean;
  /**
   * `cluster-node-timeout` in ms: how long a master may be unreachable before
   * the others fail it (and promote its replica). Default {@link DEFAULT_NODE_TIMEOUT_MS}.
   */
  nodeTimeoutMs?: number;
}

/**
 * Starts `masters × (1 + replicasPerMaster)` cluster-enabled `redis-server`s
 * from PATH on free loopback ports (client and bus port both free), joins
 * them with `redis-cli --cluster create … --cluster-replicas R`, and resolves
 * once every node reports `cluster_state:ok` (and every replica is in sync). Needs `redis-server` and `redis-cli` on
 * PATH; `REDIS_URL` and Docker are not used.
 */
export async function startRedisCluster(
  options: StartRedisClusterOptions = {},
): Promise<RedisClusterServer> {
  const masters = options.masters ?? 3;
  if (!Number.isInteger(masters) || masters < 3) {
    throw new ErrandError(
      "invalid_spec",
      `a Redis Cluster needs at least 3 masters, not ${masters}`,
    );
  }
  const replicasPerMaster = options.replicasPerMaster ?? 0;
  if (!Number.isInteger(replicasPerMaster) || replicasPerMaster < 0) {
    throw new ErrandError(
      "invalid_spec",
      `replicasPerMaster must be a whole number of 0 or more, not ${replicasPerMaster}`,
    );
  }
  const nodeTimeoutMs = options.nodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
  const server = requireOnPath("redis-server");
  const cli = requireOnPath("redis-cli");

  const launches = await Promise.allSettled(
    Array.from({ length: masters * (1 + replicasPerMaster) }, () =>
      launchLocalRedis(server, () => clusterNodeArgs(options.appendonly ?? false, nodeTimeoutMs)),
    ),
  );
  const launched = launches.flatMap((launch) =>
    launch.status === "fulfilled" ? [launch.value] : [],
  );
  const stop = async () => {
    await Promise.all(launched.map((node) => node.dispose()));
  };
  try {
    const failure = launches.find((launch) => launch.status === "rejected");
    if (failure) throw failure.reason;
    await createCluster(cli, launched, replicasPerMaster);
  } catch (error) {
    await stop();
    throw error;
  }
  const { startedMasters, startedReplicas } = await splitByRole(launched);
  const address = ({ process: node }: LaunchedRedis) => ({ host: node.host, port: node.port });
  const nodes = startedMasters.map(address);
  const master = (index: number) => {
    const node = startedMasters[index];
    if (node === undefined) throw new RangeError(`no master ${index}: there are ${masters}`);
    return node.process;
  };
  const watch = {
    launched,
    waitUntilOk: waitUntilClusterOk,
    // Detecting the failure, electing a replica and syncing the rejoined node, on a loaded machine.
    timeoutMs: 10 * nodeTimeoutMs + CLUSTER_READY_TIMEOUT_MS,
  };
  return {
    nodes,
    urls: nodes.map((node) => `redis://${node.host}:${node.port}`),
    replicas: startedReplicas.map(address),
    failOver: async (choose = 0) => {
      const withReplicas = await mastersWithReplicas(launched);
      const victim = withReplicas[choose % Math.max(1, withReplicas.length)];
      if (victim === undefined) {
        throw new ErrandError("invalid_spec", "no master has a replica: nothing can fail over");
      }
      return failOverMaster(watch, victim);
    },
    stopMaster: (index) => master(index).shutdown(),
    startMaster: async (index) => {
      await master(index).start();
      await waitUntilClusterOk(launched);
    },
    stop,
  };
}

function requireOnPath(command: string): string {
  const path = findOnPath(command);
  if (path) return path;
  throw new ErrandError(
    "redis_unavailable",
    `startRedisCluster needs ${command} on PATH: install Redis 7 ` +
      "(e.g. `apt-get install -y redis-server` or `brew install redis`).",
  );
}

/** The nodes of `launched` that were made masters, and those made replicas, by `--cluster create`. */
async function splitByRole(
  launched: LaunchedRedis[],
): Promise<{ startedMasters: LaunchedRedis[]; startedReplicas: LaunchedRedis[] }> {
  const topology = (await readTopology(launched[0]!)) ?? [];
  const masterPorts = new Set(
    topology.filter((node) => node.role === "master").map((node) => node.port),
  );
  return {
    startedMasters: launched.filter((node) => masterPorts.has(node.process.port)),
    startedReplicas: launched.filter((node) => !masterPorts.has(node.process.port)),
  };
}

/** The live masters that have a live replica, in the order of `launched`. */
async function mastersWithReplicas(launched: LaunchedRedis[]): Promise<LaunchedRedis[]> {
  for (const asked of launched) {
    const topology = await readTopology(asked);
    if (topology === undefined) continue;
    const live = topology.filter((node) => !node.failing);
    const withReplica = new Set(
      live.flatMap((node) =>
        node.role === "replica" && node.masterId !== undefined ? [node.masterId] : [],
      ),
    );
    const ports = new Set(live.filter((node) => withReplica.has(node.id)).map((node) => node.port));
    return launched.filter((node) => ports.has(node.process.port));
  }
  return [];
}

async function clusterNodeArgs(appendonly: boolean, nodeTimeoutMs: number): Promise<string[]> {
  return [
    "--cluster-enabled",
    "yes",
    "--cluster-port",
    String(await findFreePort()),
    "--cluster-config-file",
    "nodes.conf",
    "--cluster-node-timeout",
    String(nodeTimeoutMs),
    ...redisConfigArgs({ appendonly }),
  ];
}

async function createCluster(
  cli: string,
  launched: LaunchedRedis[],
  replicasPerMaster: number,
): Promise<void> {
  const addresses = launched.map(({ process: node }) => `${node.host}:${node.port}`);
  const { code, output } = await runCommand(cli, [
    "--cluster",
    "create",
    ...addresses,
    "--cluster-replicas",
    String(replicasPerMaster),
    "--cluster-yes",
  ]);
  if (code !== 0) {
    throw new ErrandError("redis_unavailable", `redis-cli --cluster create failed:\n${output}`);
  }
  await waitUntilClusterOk(launched);
  await waitUntilReplicasInSync(launched);
}

/** Resolves once every replica of `launched` has its replication link up; throws after {@link CLUSTER_READY_TIMEOUT_MS}. */
async function waitUntilReplicasInSync(launched: readonly LaunchedRedis[]): Promise<void> {
  const inSync = async ({ process: node }: LaunchedRedis) => {
    const info = await sendRedisCommand(node, ["INFO", "replication"]).catch(() => "");
    return /^role:master/m.test(info) || /^master_link_status:up/m.test(info);
  };
  const synced = await waitUntil(
    async () => ((await Promise.all(launched.map(inSync))).every(Boolean) ? true : undefined),
    { timeoutMs: CLUSTER_READY_TIMEOUT_MS },
  );
  if (!synced) {
    throw new ErrandError(
      "redis_unavailable",
      `Redis Cluster replicas not in sync with their masters within ${CLUSTER_READY_TIMEOUT_MS} ms`,
    );
  }
}

/** Resolves once every node of `launched` reports `cluster_state:ok`; throws after {@link CLUSTER_READY_TIMEOUT_MS}. */
async function waitUntilClusterOk(launched: readonly LaunchedRedis[]): Promise<void> {
  const notReady = async () => {
    for (const { process: node } of launched) if (!(await isClusterOk(node))) return node;
    return undefined;
  };
  const ready = await waitUntil(async () => ((await notReady()) ? undefined : true), {
    timeoutMs: CLUSTER_READY_TIMEOUT_MS,
  });
  if (!ready) {
    const node = await notReady();
    throw new ErrandError(
      "redis_unavailable",
      `Redis Cluster never reached cluster_state:ok (node ${node?.host}:${node?.port} did not) ` +
        `within ${CLUSTER_READY_TIMEOUT_MS} ms`,
    );
  }
}

async function isClusterOk(node: RedisAddress): Promise<boolean> {
  try {
    return (await sendRedisCommand(node, ["CLUSTER", "INFO"])).includes("cluster_state:ok");
  } catch {
    return false;
  }
}
