/**
 * `errand bench --cluster`: does the work spread over a Redis Cluster's
 * masters? The same even workload (one-step runs fired with `fireMany`, a
 * worker and a collector in this process, clock stopped when every result
 * is readable) runs on a real 3-master cluster started for it, with the
 * worker's queue in one shard per master, then on the same cluster with the
 * queue in one shard (to show what sharding the queue buys), then on one
 * fresh Redis with one queue shard. For the cluster it reports each master's
 * share of Redis
 * commands (`INFO commandstats` calls, after `CONFIG RESETSTAT`) and of Redis
 * CPU (`INFO cpu` deltas); the target is every master within ±20 % of a
 * third (docs/architecture/redis-layout.md#queue-shards).
 */
import { ErrandError } from "@errand/core";
import {
  type BenchCluster,
  CLUSTER_BENCH_MASTERS,
  CLUSTER_BENCH_SHARDS,
  queueShardsPerMaster,
  startBenchCluster,
} from "./bench-cluster.js";
import { startBenchRedis, totalCommandCalls } from "./bench-redis.js";
import { redisCpuMs } from "./cpu-meter.js";
import {
  type BenchTarget,
  fireBenchRuns,
  startErrandStack,
  waitForResults,
} from "./errand-stack.js";
import { perSecond, round } from "./stats.js";

/** How far from an even share a master may be: ±20 % of it. */
const EVEN_SHARE_TOLERANCE = 0.2;

/** Runs and worker slots of the workload. */
const QUICK_WORKLOAD = { runs: 1_500, concurrency: 24 } as const;
const FULL_WORKLOAD = { runs: 10_000, concurrency: 48 } as const;

/** The longest the bench waits for a side's (or a point's) runs. */
export const SETTLE_TIMEOUT_MS = 600_000;

/** One master's part of the cluster side's work. */
export interface MasterShare {
  /** `host:port`. */
  node: string;
  /** Redis commands it ran (script-internal ones included). */
  commands: number;
  /** Its share of all masters' commands, 0 … 1. */
  commandShare: number;
  /** Redis CPU it spent, ms (user + system). */
  cpuMs: number;
  /** Its share of all masters' CPU, 0 … 1. */
  cpuShare: number;
  /** How many of the queue's shards it holds. */
  queueShards: number;
}

/** The cluster side with the worker's queue in some number of shards. */
export interface ClusterSide {
  masters: number;
  queueShards: number;
  runsPerSec: number;
  perMaster: MasterShare[];
  /** Whether every master's command and CPU shares lie within ±20 % of an even share. */
  evenWithinTolerance: boolean;
}

/** What `bench --cluster` measured. */
export interface ClusterBenchReport {
  workload: { runs: number; concurrency: number; shards: number };
  /** The queue in one shard per master. */
  cluster: ClusterSide;
  /** The same cluster and workload with the queue in one shard: one master holds every job. */
  clusterOneQueueShard: ClusterSide;
  single: { queueShards: number; runsPerSec: number };
  /** Cluster runs/s over one Redis' runs/s. */
  clusterVsSingle: number;
}

/** Options of {@link runClusterBench}. */
export interface ClusterBenchOptions {
  /** The quick workload (about a minute) instead of the full one. */
  quick?: boolean;
  /** Runs per side, replacing the quick or full workload's (tests). */
  runs?: number;
  /** Told what the bench is doing, one line at a time. */
  onProgress?(line: string): void;
}

/** Runs the workload on `target` and resolves with its runs/s. */
async function measureRunsPerSec(
  target: BenchTarget,
  workload: { runs: number; concurrency: number },
): Promise<number> {
  const stack = await startErrandStack({ redis: target, concurrency: workload.concurrency });
  try {
    const start = performance.now();
    const runIds = await fireBenchRuns(stack, workload.runs);
    await waitForResults(stack.errand, runIds, SETTLE_TIMEOUT_MS);
    return perSecond(workload.runs, performance.now() - start);
  } finally {
    await stack.stop();
  }
}

/**
 * Empties `cluster`, runs the workload there with the worker's queue in
 * `queueShards` shards and reads each master's commands and CPU around it.
 */
async function measureCluster(
  cluster: BenchCluster,
  workload: { runs: number; concurrency: number },
  queueShards: number,
): Promise<ClusterSide> {
  const { admins } = cluster;
  await Promise.all(admins.map((admin) => admin.flushall()));
  await Promise.all(admins.map((admin) => admin.config("RESETSTAT")));
  const cpuBefore = await Promise.all(admins.map(redisCpuMs));
  const runsPerSec = await measureRunsPerSec(cluster.target(queueShards), workload);
  const commands = await Promise.all(admins.map(totalCommandCalls));
  const cpuMs = (await Promise.all(admins.map(redisCpuMs))).map((ms, i) => ms - cpuBefore[i]!);
  const held = await queueShardsPerMaster(cluster, queueShards);
  const allCommands = commands.reduce((sum, count) => sum + count, 0);
  const allCpu = cpuMs.reduce((sum, ms) => sum + ms, 0);
  const perMaster = cluster.nodes.map((node, i) => ({
    node,
    commands: commands[i]!,
    commandShare: round(commands[i]! / allCommands, 3),
    cpuMs: round(cpuMs[i]!),
    cpuShare: round(cpuMs[i]! / allCpu, 3),
    queueShards: held[i]!,
  }));
  return {
    masters: CLUSTER_BENCH_MASTERS,
    queueShards,
    runsPerSec: round(runsPerSec),
    perMaster,
    evenWithinTolerance: evenWithinTolerance(perMaster),
  };
}

/** Whether every share of `perMaster` lies within {@link EVEN_SHARE_TOLERANCE} of an even share. */
function evenWithinTolerance(perMaster: readonly MasterShare[]): boolean {
  const even = 1 / perMaster.length;
  const within = (share: number) => Math.abs(share - even) <= EVEN_SHARE_TOLERANCE * even;
  return perMaster.every(({ commandShare, cpuShare }) => within(commandShare) && within(cpuShare));
}

/**
 * Starts a 3-master cluster (never the Redis of `REDIS_URL`), runs the
 * workload there, stops it, then runs the same workload on a fresh single
 * Redis; resolves with both.
 */
export async function runClusterBench(
  options: ClusterBenchOptions = {},
): Promise<ClusterBenchReport> {
  const base = options.quick ? QUICK_WORKLOAD : FULL_WORKLOAD;
  const workload = { ...base, runs: options.runs ?? base.runs };
  options.onProgress?.(`bench --cluster: starting a ${CLUSTER_BENCH_MASTERS}-master cluster …`);
  const cluster = await startBenchCluster();
  let sharded: ClusterSide;
  let oneShard: ClusterSide;
  try {
    options.onProgress?.(`bench --cluster: ${workload.runs} runs on the cluster …`);
    sharded = await measureCluster(cluster, workload, CLUSTER_BENCH_MASTERS);
    options.onProgress?.(
      `bench --cluster: ${workload.runs} runs on the cluster, one queue shard …`,
    );
    oneShard = await measureCluster(cluster, workload, 1);
  } finally {
    await cluster.stop();
  }
  options.onProgress?.(`bench --cluster: ${workload.runs} runs on one Redis …`);
  const single = await startBenchRedis();
  let singleRunsPerSec: number;
  try {
    singleRunsPerSec = await measureRunsPerSec(
      { url: single.url, durability: "acknowledged", shards: CLUSTER_BENCH_SHARDS },
      workload,
    );
  } finally {
    await single.stop();
  }
  if (!(singleRunsPerSec > 0)) throw new ErrandError("internal", "no run settled on one Redis");
  return {
    workload: { ...workload, shards: CLUSTER_BENCH_SHARDS },
    cluster: sharded,
    clusterOneQueueShard: oneShard,
    single: { queueShards: 1, runsPerSec: round(singleRunsPerSec) },
    clusterVsSingle: round(sharded.runsPerSec / singleRunsPerSec, 3),
  };
}

/** The report as a few lines of text. */
export function formatClusterBench(report: ClusterBenchReport): string {
  const percent = (share: number) => `${round(share * 100, 1)} %`;
  const side = (figures: ClusterSide) => [
    `cluster (${figures.masters} masters, ${figures.queueShards} queue shard${figures.queueShards === 1 ? "" : "s"}): ${figures.runsPerSec} runs/s`,
    ...figures.perMaster.map(
      (master) =>
        `  ${master.node}: ${percent(master.commandShare)} of commands (${master.commands}), ${percent(master.cpuShare)} of Redis CPU (${master.cpuMs} ms), ${master.queueShards} queue shard${master.queueShards === 1 ? "" : "s"}`,
    ),
    `  every master within ±${EVEN_SHARE_TOLERANCE * 100} % of a third: ${figures.evenWithinTolerance ? "yes" : "NO"}`,
  ];
  const lines = [
    `workload: ${report.workload.runs} one-step runs, worker concurrency ${report.workload.concurrency}, ${report.workload.shards} run shards`,
    ...side(report.cluster),
    ...side(report.clusterOneQueueShard),
    `one Redis (1 queue shard): ${report.single.runsPerSec} runs/s`,
    `cluster / one Redis: ${report.clusterVsSingle}`,
  ];
  return `${lines.join("\n")}\n`;
}
