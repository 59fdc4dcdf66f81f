/**
 * The cluster the chaos harness attacks: a real `redis-server` (AOF on,
 * `appendfsync everysec`), which the processes reach through a latency proxy
 * when asked — or, with `redisCluster`, a real Redis Cluster of
 * 3 masters and 3 replicas — worker processes and collector processes. Killed
 * processes are replaced under a new name, so the cluster keeps its size.
 */

import type { Durability } from "@errand/store";
import {
  type RedisClusterServer,
  type RedisServer,
  startRedis,
  startRedisCluster,
  uniqueKeyPrefix,
} from "@errand/testing";
import { type ChaosProcess, chaosEntry, startChaosProcess } from "./chaos-process.js";
import { type LatencyProxy, startLatencyProxy } from "./latency-proxy.js";

/**
 * How long a process may take to be ready: on a loaded machine, several
 * processes compiling the sources at once take more than a minute.
 */
const READY_TIMEOUT_MS = 180_000;

/** The sizes and timings of a cluster. */
export interface ClusterOptions {
  workers: number;
  collectors: number;
  /** The workers' job lock duration in ms (a killed worker's runs move on after about this); default the engine's. */
  lockDurationMs?: number;
  /** How often the workers look for jobs whose lock lapsed, in ms; default the engine's. */
  stalledIntervalMs?: number;
  /** How many runs each worker runs at once; default 4. */
  workerConcurrency?: number;
  /** How many times a run's job may stall before BullMQ gives it up (the reaper settles it `worker_lost`); default the engine's. */
  maxStalledCount?: number;
  /**
   * Run on a Redis Cluster of 3 masters, each with a replica, whose masters
   * are failed after this `cluster-node-timeout` (ms); default one `redis-server`.
   */
  redisCluster?: { nodeTimeoutMs: number };
  /** The durability of the workers' and collectors' appends; default the engine's. */
  durability?: Durability;
  /** Put a latency proxy between the one `redis-server` and every client but the harness's admin. */
  latencyProxy?: boolean;
}

/** The masters of the chaos Redis Cluster; each gets one replica. */
const CLUSTER_MASTERS = 3;

/**
 * Where the processes' Redis runs: one server (reached through `proxy` when
 * there is one), or a cluster with replicas. `url` is what the processes and
 * the harness's client connect with, `adminUrl` goes straight to Redis.
 */
type ChaosRedis =
  | { kind: "server"; server: RedisServer; url: string; adminUrl: string; proxy?: LatencyProxy }
  | { kind: "cluster"; cluster: RedisClusterServer; url: string; adminUrl: string };

async function startChaosRedis(options: ClusterOptions): Promise<ChaosRedis> {
  if (options.redisCluster === undefined) {
    const server = await startRedis({
      appendonly: true,
      appendfsync: "everysec",
      maxmemoryPolicy: "noeviction",
      // `CONFIG SET dir`, which the MISCONF fault needs, is a protected config.
      args: ["--enable-protected-configs", "yes"],
    });
    if (options.latencyProxy !== true) {
      return { kind: "server", server, url: server.url, adminUrl: server.url };
    }
    const proxy = await startLatencyProxy(server.host, server.port);
    return { kind: "server", server, url: proxy.url, adminUrl: server.url, proxy };
  }
  const cluster = await startRedisCluster({
    masters: CLUSTER_MASTERS,
    replicasPerMaster: 1,
    appendonly: true,
    nodeTimeoutMs: options.redisCluster.nodeTimeoutMs,
  });
  const nodes = [...cluster.nodes, ...cluster.replicas];
  const url = `redis+cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(",")}`;
  return { kind: "cluster", cluster, url, adminUrl: url };
}

async function stopChaosRedis(redis: ChaosRedis): Promise<void> {
  if (redis.kind === "cluster") return redis.cluster.stop();
  await redis.proxy?.close();
  await redis.server.stop();
}

/** A running chaos cluster. */
export interface ChaosCluster {
  /** Its Redis, with the URL every process connects with, and the admin's. */
  readonly redis: ChaosRedis;
  readonly prefix: string;
  /** The ready worker processes not struck down. */
  readonly workers: ChaosProcess[];
  /** The ready collector processes not struck down. */
  readonly collectors: ChaosProcess[];
  /** Every worker process ever started (killed ones included), for their log counts. */
  readonly allWorkers: ChaosProcess[];
  /** Every collector process ever started (killed ones included), for their log counts. */
  readonly allCollectors: ChaosProcess[];
  /** Starts one more worker and resolves once it is ready. */
  addWorker(): Promise<ChaosProcess>;
  /** Starts one more collector and resolves once it is ready. */
  addCollector(): Promise<ChaosProcess>;
  /** Resolves once every process started so far is ready (or failed to start). */
  ready(): Promise<void>;
  /**
   * Kills every process and stops Redis, once each process still starting
   * is ready (or failed to start): one killed mid-start would read as a
   * replacement that did not start.
   */
  stop(): Promise<void>;
}

/** Starts Redis, the workers and the collectors, and resolves once all are ready. */
export async function startCluster(options: ClusterOptions): Promise<ChaosCluster> {
  const redis = await startChaosRedis(options);
  const prefix = uniqueKeyPrefix("chaos");
  const workers: ChaosProcess[] = [];
  const collectors: ChaosProcess[] = [];
  const allWorkers: ChaosProcess[] = [];
  const allCollectors: ChaosProcess[] = [];
  let started = 0;
  const starting = new Set<Promise<unknown>>();
  const base = {
    REDIS_URL: redis.url,
    ERRAND_PREFIX: prefix,
    ...(options.durability === undefined ? {} : { DURABILITY: options.durability }),
  };
  const workerSettings: Record<string, string> = {
    ...(options.lockDurationMs === undefined
      ? {}
      : { LOCK_DURATION_MS: String(options.lockDurationMs) }),
    ...(options.stalledIntervalMs === undefined
      ? {}
      : { STALLED_INTERVAL_MS: String(options.stalledIntervalMs) }),
    ...(options.workerConcurrency === undefined
      ? {}
      : { CONCURRENCY: String(options.workerConcurrency) }),
    ...(options.maxStalledCount === undefined
      ? {}
      : { MAX_STALLED_COUNT: String(options.maxStalledCount) }),
  };

  /** `start`, remembered until it settles, so that `ready` can wait for it. */
  const tracked = (start: Promise<ChaosProcess>) => {
    starting.add(start);
    const forget = () => void starting.delete(start);
    start.then(forget, forget);
    return start;
  };
  const startWorker = async () => {
    started += 1;
    const worker = startChaosProcess(`worker-${started}`, chaosEntry("./worker-entry.ts"), {
      ...base,
      ...workerSettings,
      WORKER_ID: `chaos-worker-${started}`,
    });
    allWorkers.push(worker);
    await worker.waitForMessage("worker ready", READY_TIMEOUT_MS);
    workers.push(worker); // only a ready worker can be struck
    return worker;
  };
  const addWorker = () => tracked(startWorker());
  const startCollector = async () => {
    started += 1;
    const collector = startChaosProcess(
      `collector-${started}`,
      chaosEntry("./collector-entry.ts"),
      { ...base, COLLECTOR_ID: `chaos-collector-${started}` },
    );
    allCollectors.push(collector);
    await collector.waitForMessage("collector ready", READY_TIMEOUT_MS);
    collectors.push(collector); // only a ready collector can be struck
    return collector;
  };
  const addCollector = () => tracked(startCollector());

  // Should the harness itself die, its children die with it rather than outlive it.
  process.once("exit", () => {
    for (const child of [...allWorkers, ...allCollectors]) child.child.kill("SIGKILL");
  });
  await Promise.all([
    ...Array.from({ length: options.workers }, addWorker),
    ...Array.from({ length: options.collectors }, addCollector),
  ]);
  return {
    redis,
    prefix,
    workers,
    collectors,
    allWorkers,
    allCollectors,
    addWorker,
    addCollector,
    async ready() {
      await Promise.allSettled([...starting]);
    },
    async stop() {
      await Promise.allSettled([...starting]);
      await Promise.all([...allWorkers, ...allCollectors].map((p) => p.signal("SIGKILL")));
      await stopChaosRedis(redis);
    },
  };
}
