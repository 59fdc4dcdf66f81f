/**
 * `startRedisCluster`: a real Redis Cluster of N masters on loopback, for
 * proving that every multi-key script keeps to one hash tag.
 */
import { ErrandError } from "@errand/core";
import {
  findFreePort,
  findOnPath,
  type LaunchedRedis,
  launchLocalRedis,
  type RedisAddress,
  redisConfigArgs,
  runCommand,
  sendRedisCommand,
  waitUntil,
} from "@errand/local-redis";

const CLUSTER_READY_TIMEOUT_MS = 30_000;

/** A running Redis Cluster. */
export interface RedisClusterServer {
  /** Every master, ready for `new Cluster(nodes)` (ioredis). */
  nodes: { host: string; port: number }[];
  /** `redis://host:port` of every master, in the order of `nodes`. */
  urls: string[];
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
  /** Turn on each node's append-only file, so that a master restarted keeps its data. */
  appendonly?: boolean;
}

/**
 * Starts `masters` cluster-enabled `redis-server`s from PATH on free loopback
 * ports (client and bus port both free), joins them with
 * `redis-cli --cluster create … --cluster-replicas 0`, and resolves once every
 * node reports `cluster_state:ok`. Needs `redis-server` and `redis-cli` on
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
  const server = requireOnPath("redis-server");
  const cli = requireOnPath("redis-cli");

  const launches = await Promise.allSettled(
    Array.from({ length: masters }, () =>
      launchLocalRedis(server, () => clusterNodeArgs(options.appendonly ?? false)),
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
    await createCluster(cli, launched);
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = launched.map(({ process: node }) => ({ host: node.host, port: node.port }));
  const master = (index: number) => {
    const node = launched[index];
    if (node === undefined) throw new RangeError(`no master ${index}: there are ${masters}`);
    return node.process;
  };
  return {
    nodes,
    urls: nodes.map((node) => `redis://${node.host}:${node.port}`),
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

async function clusterNodeArgs(appendonly: boolean): Promise<string[]> {
  return [
    "--cluster-enabled",
    "yes",
    "--cluster-port",
    String(await findFreePort()),
    "--cluster-config-file",
    "nodes.conf",
    "--cluster-node-timeout",
    "5000",
    ...redisConfigArgs({ appendonly }),
  ];
}

async function createCluster(cli: string, launched: LaunchedRedis[]): Promise<void> {
  const addresses = launched.map(({ process: node }) => `${node.host}:${node.port}`);
  const { code, output } = await runCommand(cli, [
    "--cluster",
    "create",
    ...addresses,
    "--cluster-replicas",
    "0",
    "--cluster-yes",
  ]);
  if (code !== 0) {
    throw new ErrandError("redis_unavailable", `redis-cli --cluster create failed:\n${output}`);
  }
  await waitUntilClusterOk(launched);
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
