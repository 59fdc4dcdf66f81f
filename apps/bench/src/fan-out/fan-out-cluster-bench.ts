import { createWorker, engineKeys } from "@errand/engine";
import type { Redis } from "ioredis";
import { BENCH_AGENT } from "../bench-agent.js";
import {
  type BenchCluster,
  CLUSTER_BENCH_MASTERS,
  CLUSTER_BENCH_SHARDS,
  queueShardsPerMaster,
  startBenchCluster,
} from "../bench-cluster.js";
import { commandCalls, commandsPerUnit, usedMemory } from "../bench-redis.js";
import { nodeCpuMs, redisCpuMs } from "../cpu-meter.js";
import { startErrandStack } from "../errand-stack.js";
import { bytesByKeyKind, sumKeyKindBytes } from "../key-kinds.js";
import { loadAverages } from "../machine.js";
import { startMemorySampler } from "../memory-sampler.js";
import { round } from "../stats.js";
import {
  awaitFannedOutParent,
  drainSlowlog,
  FAN_OUT_BATCH,
  FAN_OUT_PAGE_LIMIT,
  type FanOutBenchOptions,
  type FanOutPhaseFigures,
  type FanOutReport,
  fanOutReport,
  fanOutWorkerOptions,
  formatFanOutBench,
  PARENT_SETTLED,
  serverPeakRssMb,
} from "./fan-out-bench.js";
import { FAN_OUT_PARENT, type FanOutPhase } from "./fan-out-parent.js";
import {
  indexedRuns,
  mastersOfRunShards,
  runLogsPerMaster,
  runShardsPerMaster,
} from "./master-counts.js";

/** How often the bench says how far the fan-out got. */
const PROGRESS_INTERVAL_MS = 60_000;

/** One master's part of the fan-out. */
export interface FanOutMasterShare {
  /** `host:port`. */
  node: string;
  /** Run shards it holds, of {@link CLUSTER_BENCH_SHARDS}. */
  runShards: number;
  /** Shards of the worker's queue it holds. */
  queueShards: number;
  /** Children whose runs its shards hold (the bench agent's run index). */
  children: number;
  /** Its share of all children, 0 … 1. */
  childShare: number;
  /** Run logs it holds: its children's, and the parent's on one master. */
  runLogs: number;
  /** Whether the parent's run is on it (its log, transcript and children set). */
  holdsParent: boolean;
  /** Growth of its `used_memory`, bytes. */
  memoryBytes: number;
  /** Its share of the masters' memory growth, 0 … 1. */
  memoryShare: number;
  /** Redis commands it ran (script-internal ones included). */
  commands: number;
  /** Its share of all masters' commands, 0 … 1. */
  commandShare: number;
  /** Redis CPU it spent, ms (user + system). */
  cpuMs: number;
  /** Its share of all masters' CPU, 0 … 1. */
  cpuShare: number;
  /** Its peak resident set, MB. */
  peakRssMb: number;
}

/**
 * What `errand bench --fan-out N --cluster --json` prints: the fan-out's
 * figures (Redis CPU, bytes and peak RSS the masters' summed), then the
 * cluster's shape and each master's part.
 */
export interface FanOutClusterReport extends FanOutReport {
  masters: number;
  /** Run shards. */
  shards: number;
  /** Shards of the worker's queue. */
  queueShards: number;
  perMaster: FanOutMasterShare[];
  /** The masters' counts together. */
  totals: { children: number; succeeded: number; runLogs: number };
  /** Whether the totals are N children, N + 1 runs succeeded and N + 1 run logs (the parent's too). */
  countsAddUp: boolean;
}

/** What the bench reads from each master at one moment. */
interface MasterReading {
  calls: Map<string, number>;
  memory: number;
  cpuMs: number;
}

function readMasters(admins: readonly Redis[]): Promise<MasterReading[]> {
  return Promise.all(
    admins.map(async (admin) => ({
      calls: await commandCalls(admin),
      memory: await usedMemory(admin),
      cpuMs: await redisCpuMs(admin),
    })),
  );
}

/** The command calls of every master together, by name. */
function summedCalls(readings: readonly MasterReading[]): Map<string, number> {
  const sum = new Map<string, number>();
  for (const { calls } of readings) {
    for (const [name, count] of calls) sum.set(name, (sum.get(name) ?? 0) + count);
  }
  return sum;
}

function total(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0);
}

/** `value` over `all`, 0 … 1, three decimals (0 when all is 0). */
function share(value: number, all: number): number {
  return all === 0 ? 0 : round(value / all, 3);
}

/** The slowest commands of every master since the last drain, the slowest first, as many as one master's drain gives. */
async function drainSlowlogs(admins: readonly Redis[]): Promise<FanOutPhaseFigures["slowest"]> {
  const drained = await Promise.all(admins.map(drainSlowlog));
  const most = Math.max(...drained.map((entries) => entries.length));
  return drained
    .flat()
    .sort((a, b) => b.micros - a.micros)
    .slice(0, most);
}

/** Every master's share of the children, memory, commands and CPU, from readings before and after. */
async function masterShares(
  cluster: BenchCluster,
  parentRunId: string,
  before: readonly MasterReading[],
  after: readonly MasterReading[],
): Promise<{ perMaster: FanOutMasterShare[]; totals: FanOutClusterReport["totals"] }> {
  const shardMasters = await mastersOfRunShards(cluster, CLUSTER_BENCH_SHARDS);
  const runShards = runShardsPerMaster(cluster, shardMasters);
  const queueShards = await queueShardsPerMaster(cluster, CLUSTER_BENCH_MASTERS, [
    BENCH_AGENT,
    FAN_OUT_PARENT,
  ]);
  const indexed = await indexedRuns(cluster, shardMasters);
  const runLogs = await runLogsPerMaster(cluster);
  const parentMaster = await cluster.masterOfKey(engineKeys().runLog(parentRunId));
  const memory = after.map((reading, i) => reading.memory - before[i]!.memory);
  const commands = after.map(
    (reading, i) => total([...reading.calls.values()]) - total([...before[i]!.calls.values()]),
  );
  const cpuMs = after.map((reading, i) => reading.cpuMs - before[i]!.cpuMs);
  const peaks = await Promise.all(cluster.admins.map(serverPeakRssMb));
  const totals = {
    children: total(indexed.children),
    succeeded: total(indexed.succeeded),
    runLogs: total(runLogs),
  };
  const perMaster = cluster.nodes.map((node, i) => ({
    node,
    runShards: runShards[i]!,
    queueShards: queueShards[i]!,
    children: indexed.children[i]!,
    childShare: share(indexed.children[i]!, totals.children),
    runLogs: runLogs[i]!,
    holdsParent: i === parentMaster,
    memoryBytes: memory[i]!,
    memoryShare: share(memory[i]!, total(memory)),
    commands: commands[i]!,
    commandShare: share(commands[i]!, total(commands)),
    cpuMs: round(cpuMs[i]!),
    cpuShare: share(cpuMs[i]!, total(cpuMs)),
    peakRssMb: peaks[i]!,
  }));
  return { perMaster, totals };
}

/** Says every {@link PROGRESS_INTERVAL_MS} how many children the masters index and how many succeeded; returns the stop. */
function reportProgress(
  cluster: BenchCluster,
  start: number,
  onProgress: (line: string) => void,
): () => void {
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    mastersOfRunShards(cluster, CLUSTER_BENCH_SHARDS)
      .then((shardMasters) => indexedRuns(cluster, shardMasters))
      .then(({ children, succeeded }) => {
        const seconds = round((performance.now() - start) / 1000);
        onProgress(
          `${seconds} s: ${total(children)} children fired, ${total(succeeded)} succeeded`,
        );
      })
      .catch((error: unknown) => onProgress(`progress not read: ${(error as Error).message}`))
      .finally(() => {
        reading = false;
      });
  }, PROGRESS_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs one fan-out of `options.children` children on a cluster it starts, and measures it. */
export async function runFanOutClusterBench(
  options: FanOutBenchOptions,
): Promise<FanOutClusterReport> {
  const { children, onProgress } = options;
  const batch = options.batch ?? FAN_OUT_BATCH;
  const loadBefore = loadAverages();
  onProgress(`starting a ${CLUSTER_BENCH_MASTERS}-master cluster`);
  const cluster = await startBenchCluster();
  const { admins } = cluster;
  try {
    for (const admin of admins) {
      await admin.config("SET", "slowlog-log-slower-than", "1000");
      await admin.call("SLOWLOG", "RESET");
    }
    const target = cluster.target(CLUSTER_BENCH_MASTERS);
    const stack = await startErrandStack({ redis: target, concurrency: 1, worker: false });
    const phases: FanOutPhaseFigures[] = [];
    const times = new Map<FanOutPhase, number>();
    const kindsBefore = sumKeyKindBytes(await Promise.all(admins.map(bytesByKeyKind)));
    const before = await readMasters(admins);
    const nodeBefore = nodeCpuMs();
    const memory = startMemorySampler();
    const start = performance.now();
    let phaseStart = { at: start, readings: before, nodeMs: nodeBefore };
    const onPhase = async (phase: FanOutPhase) => {
      memory.phase(phase);
      const now = {
        at: performance.now(),
        readings: await readMasters(admins),
        nodeMs: nodeCpuMs(),
      };
      const redisMs = total(now.readings.map((r, i) => r.cpuMs - phaseStart.readings[i]!.cpuMs));
      phases.push({
        phase,
        seconds: round((now.at - phaseStart.at) / 1000, 2),
        cpuMs: { node: round(now.nodeMs - phaseStart.nodeMs), redis: round(redisMs) },
        commandsPerChild: commandsPerUnit(
          summedCalls(phaseStart.readings),
          summedCalls(now.readings),
          children,
        ),
        slowest: await drainSlowlogs(admins),
        redisBytesPerChild: round(
          total(now.readings.map((r, i) => r.memory - before[i]!.memory)) / children,
        ),
      });
      times.set(phase, now.at);
      onProgress(`${phase} after ${round((now.at - start) / 1000, 1)} s`);
      phaseStart = now;
    };
    const plan = { children, batch, pageLimit: FAN_OUT_PAGE_LIMIT, onPhase };
    const worker = await createWorker({
      connection: target.url,
      durability: target.durability,
      shards: CLUSTER_BENCH_SHARDS,
      queueShards: CLUSTER_BENCH_MASTERS,
      ...fanOutWorkerOptions(plan),
    });
    const stopProgress = reportProgress(cluster, start, onProgress);
    try {
      onProgress(
        `fanning out to ${children} children over ${CLUSTER_BENCH_MASTERS} masters, ${batch} a spawn_agents call`,
      );
      const { runId, endedAt: end, parent } = await awaitFannedOutParent(stack.errand, children);
      memory.phase(PARENT_SETTLED);
      stopProgress();
      const nodeMs = nodeCpuMs() - nodeBefore;
      const after = await readMasters(admins);
      const { perMaster, totals } = await masterShares(cluster, runId, before, after);
      const redisMs = total(after.map((reading, i) => reading.cpuMs - before[i]!.cpuMs));
      const kindsAfter = sumKeyKindBytes(await Promise.all(admins.map(bytesByKeyKind)));
      return {
        ...fanOutReport({
          loadBefore,
          children,
          batch,
          start,
          end,
          times,
          parent,
          phases,
          cpuMs: { node: nodeMs, redis: redisMs },
          redisBytes: total(perMaster.map((m) => m.memoryBytes)),
          kinds: { before: kindsBefore, after: kindsAfter },
          redisPeakRssMb: round(total(perMaster.map((m) => m.peakRssMb))),
          memory: memory.stop(),
        }),
        masters: CLUSTER_BENCH_MASTERS,
        shards: CLUSTER_BENCH_SHARDS,
        queueShards: CLUSTER_BENCH_MASTERS,
        perMaster,
        totals,
        countsAddUp:
          totals.children === children &&
          totals.succeeded === children + 1 &&
          totals.runLogs === children + 1,
      };
    } finally {
      stopProgress();
      await worker.close({ graceMs: 0 });
      await stack.stop();
    }
  } finally {
    await cluster.stop();
  }
}

/**
 * The report as lines for a terminal: the fan-out's (its Redis figures the
 * masters' together), then each master's part and whether the counts add up.
 */
export function formatFanOutClusterBench(report: FanOutClusterReport): string {
  const percent = (value: number) => `${round(value * 100, 1)} %`;
  const lines = [
    `on a ${report.masters}-master Redis Cluster (${report.shards} run shards, ${report.queueShards} queue shards); the Redis figures are the masters' together`,
    formatFanOutBench(report).trimEnd(),
    ...report.perMaster.map(
      (m) =>
        `  ${m.node}: ${m.children} children (${percent(m.childShare)}), ${m.runLogs} run logs${m.holdsParent ? " (the parent's too)" : ""}, ${percent(m.memoryShare)} of memory (${m.memoryBytes} B), ${percent(m.commandShare)} of commands (${m.commands}), ${percent(m.cpuShare)} of Redis CPU (${m.cpuMs} ms); ${m.runShards} run shards, ${m.queueShards} queue shard${m.queueShards === 1 ? "" : "s"}, peak RSS ${m.peakRssMb} MB`,
    ),
    `  over the masters: ${report.totals.children} children, ${report.totals.succeeded} runs succeeded, ${report.totals.runLogs} run logs: ${report.countsAddUp ? "they add up" : "they do NOT add up"} (N children; N + 1 with the parent)`,
  ];
  return `${lines.join("\n")}\n`;
}
