/**
 * `errand bench --scaling`: do more worker processes settle more runs? The
 * same even workload (one-step runs fired with `fireMany` from this process,
 * a collector in this process, clock stopped when every result is readable)
 * runs with 1, 2 and 4 worker processes — real child processes, each a
 * worker of its own — against one fresh Redis (one queue shard), then
 * against a real 3-master Redis Cluster started for it (one queue shard per
 * master). Beside each runs/s it reports the cores each part kept busy (CPU
 * time over wall time): on a machine with few cores the sum of those says
 * what limits the figure, not errand's design.
 */
import type { Redis } from "ioredis";
import {
  CLUSTER_BENCH_MASTERS,
  CLUSTER_BENCH_SHARDS,
  startBenchCluster,
} from "../bench-cluster.js";
import { startBenchRedis } from "../bench-redis.js";
import { SETTLE_TIMEOUT_MS } from "../cluster-bench.js";
import { nodeCpuMs, redisCpuMs } from "../cpu-meter.js";
import {
  type BenchTarget,
  fireBenchRuns,
  startErrandStack,
  waitForResults,
} from "../errand-stack.js";
import { loadAverages, type MachineInfo, machineCpuMs, machineInfo } from "../machine.js";
import { perSecond, round } from "../stats.js";
import { startWorkerProcesses } from "./worker-processes.js";

/** The worker process counts measured, in order. */
const WORKER_COUNTS = [1, 2, 4] as const;

/** Runs per point, and runs each worker process takes at once. */
const QUICK_WORKLOAD = { runs: 1_000, concurrencyPerWorker: 16 } as const;
const FULL_WORKLOAD = { runs: 5_000, concurrencyPerWorker: 16 } as const;

/** Cores a part kept busy during a point: its CPU time over the wall time. */
export interface BusyCores {
  /** The worker processes, together. */
  workers: number;
  /** This process: firing, the collector and reading the results. */
  bench: number;
  /** The Redis server (the cluster's masters, together). */
  redis: number;
  /** The three together: near the machine's cores, the machine is the limit. */
  total: number;
  /** Every process on the machine, ours and others': well above `total`, others took cores from the bench. */
  machine: number;
}

/** One worker count on one side. */
export interface ScalingPoint {
  workerProcesses: number;
  runsPerSec: number;
  busyCores: BusyCores;
}

/** One side: where the runs went, and each worker count's figures. */
export interface ScalingSide {
  masters: number;
  queueShards: number;
  points: ScalingPoint[];
  /** runs/s with the most worker processes over runs/s with one. */
  mostOverOne: number;
}

/** What `bench --scaling` measured. */
export interface ScalingReport {
  machine: MachineInfo;
  workload: { runs: number; concurrencyPerWorker: number; shards: number };
  /** 1, 5 and 15 minute load averages before and after. */
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
  single: ScalingSide;
  cluster: ScalingSide;
}

/** Options of {@link runScalingBench}. */
export interface ScalingBenchOptions {
  /** The quick workload (a minute or two) instead of the full one. */
  quick?: boolean;
  /** Runs per point, replacing the quick or full workload's (tests). */
  runs?: number;
  /** The worker process counts to measure; default 1, 2 and 4. */
  workerCounts?: readonly number[];
  /** Told what the bench is doing, one line at a time. */
  onProgress?(line: string): void;
}

/** A Redis (or cluster) the points run on, with the server connections the figures read. */
interface Side {
  name: string;
  target: BenchTarget;
  masters: Redis[];
}

/** Fires the workload's runs on `stack` and waits for their results; resolves with the CPU each part spent, ms. */
async function settleWorkload(
  side: Side,
  stack: Awaited<ReturnType<typeof startErrandStack>>,
  runs: number,
): Promise<{ wallMs: number; benchMs: number; redisMs: number; machineMs: number }> {
  const redisBefore = await Promise.all(side.masters.map(redisCpuMs));
  const benchBefore = nodeCpuMs();
  const machineBefore = machineCpuMs();
  const start = performance.now();
  const runIds = await fireBenchRuns(stack, runs);
  await waitForResults(stack.errand, runIds, SETTLE_TIMEOUT_MS);
  const wallMs = performance.now() - start;
  const benchMs = nodeCpuMs() - benchBefore;
  const machineMs = machineCpuMs() - machineBefore;
  const redisAfter = await Promise.all(side.masters.map(redisCpuMs));
  const redisMs = redisAfter.reduce((sum, ms, i) => sum + ms - redisBefore[i]!, 0);
  return { wallMs, benchMs, redisMs, machineMs };
}

/** Runs one point on `side` with `workers` worker processes (this process runs none). */
async function measurePoint(
  side: Side,
  workers: number,
  workload: { runs: number; concurrencyPerWorker: number },
): Promise<ScalingPoint> {
  await Promise.all(side.masters.map((master) => master.flushall()));
  const stack = await startErrandStack({
    redis: side.target,
    concurrency: workload.concurrencyPerWorker,
    worker: false,
  });
  try {
    const processes = await startWorkerProcesses(workers, {
      target: side.target,
      concurrency: workload.concurrencyPerWorker,
    });
    let spent: Awaited<ReturnType<typeof settleWorkload>>;
    try {
      spent = await settleWorkload(side, stack, workload.runs);
    } catch (error) {
      await processes.stop().catch(() => 0);
      throw error;
    }
    const workersMs = await processes.stop();
    const cores = (ms: number) => round(ms / spent.wallMs, 2);
    return {
      workerProcesses: workers,
      runsPerSec: round(perSecond(workload.runs, spent.wallMs)),
      busyCores: {
        workers: cores(workersMs),
        bench: cores(spent.benchMs),
        redis: cores(spent.redisMs),
        total: cores(workersMs + spent.benchMs + spent.redisMs),
        machine: cores(spent.machineMs),
      },
    };
  } finally {
    await stack.stop();
  }
}

/** Runs every point of `counts` on `side`. */
async function measureSide(
  side: Side,
  counts: readonly number[],
  workload: { runs: number; concurrencyPerWorker: number },
  onProgress: ((line: string) => void) | undefined,
): Promise<ScalingSide> {
  const points: ScalingPoint[] = [];
  for (const workers of counts) {
    onProgress?.(
      `bench --scaling: ${workload.runs} runs, ${workers} worker processes, ${side.name} …`,
    );
    points.push(await measurePoint(side, workers, workload));
  }
  const first = points[0]!.runsPerSec;
  const last = points[points.length - 1]!.runsPerSec;
  return {
    masters: side.masters.length,
    queueShards: side.target.queueShards ?? 1,
    points,
    mostOverOne: round(last / first, 3),
  };
}

/**
 * Measures every worker count on one fresh Redis, then on a 3-master cluster
 * it starts (never the Redis of `REDIS_URL`: each point flushes its servers).
 */
export async function runScalingBench(options: ScalingBenchOptions = {}): Promise<ScalingReport> {
  const base = options.quick ? QUICK_WORKLOAD : FULL_WORKLOAD;
  const workload = { ...base, runs: options.runs ?? base.runs };
  const counts = options.workerCounts ?? WORKER_COUNTS;
  const loadBefore = loadAverages();
  const server = await startBenchRedis();
  let single: ScalingSide;
  try {
    const target = {
      url: server.url,
      durability: "acknowledged",
      shards: CLUSTER_BENCH_SHARDS,
    } as const;
    single = await measureSide(
      { name: "one Redis", target, masters: [server.admin] },
      counts,
      workload,
      options.onProgress,
    );
  } finally {
    await server.stop();
  }
  options.onProgress?.(`bench --scaling: starting a ${CLUSTER_BENCH_MASTERS}-master cluster …`);
  const cluster = await startBenchCluster();
  let clustered: ScalingSide;
  try {
    clustered = await measureSide(
      {
        name: `${CLUSTER_BENCH_MASTERS}-master cluster`,
        target: cluster.target(CLUSTER_BENCH_MASTERS),
        masters: cluster.admins,
      },
      counts,
      workload,
      options.onProgress,
    );
  } finally {
    await cluster.stop();
  }
  return {
    machine: machineInfo(),
    workload: { ...workload, shards: CLUSTER_BENCH_SHARDS },
    loadBefore,
    loadAfter: loadAverages(),
    single,
    cluster: clustered,
  };
}

/** The report as a few lines of text. */
export function formatScalingBench(report: ScalingReport): string {
  const side = (title: string, figures: ScalingSide) => [
    `${title} (${figures.masters} master${figures.masters === 1 ? "" : "s"}, ${figures.queueShards} queue shard${figures.queueShards === 1 ? "" : "s"}):`,
    ...figures.points.map(
      ({ workerProcesses, runsPerSec, busyCores: c }) =>
        `  ${workerProcesses} worker process${workerProcesses === 1 ? "" : "es"}: ${runsPerSec} runs/s; busy cores: workers ${c.workers}, bench ${c.bench}, Redis ${c.redis}, together ${c.total} (whole machine ${c.machine})`,
    ),
    `  most / one worker process: ${figures.mostOverOne}`,
  ];
  const lines = [
    `machine: ${report.machine.cpus} cores (${report.machine.cpuModel}); load before ${report.loadBefore.join(" ")}, after ${report.loadAfter.join(" ")}`,
    `workload per point: ${report.workload.runs} one-step runs, ${report.workload.concurrencyPerWorker} at once per worker process, ${report.workload.shards} run shards`,
    ...side("one Redis", report.single),
    ...side("cluster", report.cluster),
  ];
  return `${lines.join("\n")}\n`;
}
