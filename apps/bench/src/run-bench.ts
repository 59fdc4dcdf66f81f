/**
 * `runBench`: every phase in one run, on one fresh Redis, emptied between
 * phases: raw BullMQ, errand end to end, errand latency (persistence off,
 * then with AOF `everysec`, then with AOF and the worker and the collector
 * in a child process), the worker's append round trips, the collector on a
 * backlog, then raw XREADGROUP on the same backlog's entries.
 */
import type { Durability } from "@errand/engine";
import type { BenchRedis } from "./bench-redis.js";
import { startBenchRedis } from "./bench-redis.js";
import { startBenchTracing } from "./bench-tracing.js";
import type { CpuPerUnit } from "./cpu-meter.js";
import type { BenchTarget } from "./errand-stack.js";
import type { LatencyProfile, StageFigures } from "./latency-profile.js";
import { loadAverages, machineInfo } from "./machine.js";
import { measureAppendRoundTrips } from "./phases/append-round-trips.js";
import { measureBullmq } from "./phases/bullmq-baseline.js";
import { COLLECTOR_BATCH_SIZE, measureCollectorBacklog } from "./phases/collector-backlog.js";
import { measureErrandLatency } from "./phases/errand-latency.js";
import { measureErrandLatencyAof } from "./phases/errand-latency-aof.js";
import { measureErrandThroughput } from "./phases/errand-throughput.js";
import { measureXreadgroup } from "./phases/xreadgroup-baseline.js";
import type { ProcessFigures } from "./process-watch.js";
import type { BenchResult } from "./report.js";
import { type BenchSizes, resolveSizes } from "./sizes.js";
import { round } from "./stats.js";

/** `cpu` in whole microseconds. */
function roundCpu(cpu: CpuPerUnit): CpuPerUnit {
  return { nodeUs: round(cpu.nodeUs), redisUs: round(cpu.redisUs) };
}

/**
 * `total` less `bullmq`, name by name, to two decimals: errand's own
 * commands per run. Names whose difference rounds to 0 are left out; the
 * largest first.
 */
function ownCommandsByName(
  total: Record<string, number>,
  bullmq: Record<string, number>,
): Record<string, number> {
  const names = new Set([...Object.keys(total), ...Object.keys(bullmq)]);
  const own = [...names]
    .map((name): [string, number] => [name, round((total[name] ?? 0) - (bullmq[name] ?? 0), 2)])
    .filter(([, perRun]) => perRun !== 0)
    .sort(([, a], [, b]) => b - a);
  return Object.fromEntries(own);
}

/** The budget of `--budget` runs: large enough that no bench run ever exhausts it. */
const BENCH_BUDGET = { tokens: 1e12, costUsd: 1e6, steps: 1e9 } as const;

/** Each value of `figures` rounded to `digits` decimals. */
function roundEach(figures: Record<string, number>, digits: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(figures).map(([name, value]) => [name, round(value, digits)]),
  );
}

/** Each stage's figure to two decimals. */
function roundStages(stages: StageFigures): StageFigures {
  return roundEach(stages, 2) as StageFigures;
}

/** `figures` with every duration to two decimals. */
function roundProcess(figures: ProcessFigures): ProcessFigures {
  return {
    eventLoopDelayP99Ms: round(figures.eventLoopDelayP99Ms, 2),
    eventLoopDelayMaxMs: round(figures.eventLoopDelayMaxMs, 2),
    gcPauses: figures.gcPauses,
    gcPauseTotalMs: round(figures.gcPauseTotalMs, 2),
    gcPauseMaxMs: round(figures.gcPauseMaxMs, 2),
    heapAllocatedMb: round(figures.heapAllocatedMb, 2),
  };
}

/** `profile` with every figure to two decimals. */
function roundProfile(profile: LatencyProfile): LatencyProfile {
  return {
    stagesP50Ms: roundStages(profile.stagesP50Ms),
    stagesP99Ms: roundStages(profile.stagesP99Ms),
    tailStagesMeanMs: roundStages(profile.tailStagesMeanMs),
    ...roundProcess(profile),
    heapAllocatedKbPerRun: round(profile.heapAllocatedKbPerRun, 1),
    redisLatencyMaxMs: profile.redisLatencyMaxMs,
  };
}

/** Options of {@link runBench}. */
export interface BenchOptions {
  /** The quick sizes (under a minute) instead of the full ones. */
  quick?: boolean;
  /** Sizes that replace the quick or full ones. */
  sizes?: Partial<BenchSizes>;
  /**
   * Install the OpenTelemetry SDK (spans batched and exported to memory)
   * for the run, to measure what tracing costs. Default false: errand's spans
   * are the API's no-ops, as in an application without an SDK.
   */
  tracing?: boolean;
  /**
   * The durability errand's parts append with. `"replicated"` starts a
   * replica beside the bench's Redis, and each settling append waits for it
   * (`WAIT`), to measure what that costs. Default `"acknowledged"`.
   */
  durability?: Durability;
  /**
   * Keep the workers' Prometheus metrics, as `createWorker` does by default.
   * False: workers run with `prometheus: false`, to measure what metrics cost.
   */
  metrics?: boolean;
  /**
   * Fire every errand run with a budget ({@link BENCH_BUDGET}, never
   * exhausted): each model request is admitted and each response debited on
   * Redis, to measure what budgets cost. Default false.
   */
  budget?: boolean;
  /** Told what the bench is doing, one line at a time (e.g. to print on stderr). */
  onProgress?(line: string): void;
}

/** Runs `measure` after announcing it, and announces how long it took. */
async function phase<T>(
  options: BenchOptions,
  name: string,
  measure: () => Promise<T>,
): Promise<T> {
  options.onProgress?.(`bench: ${name} …`);
  const start = performance.now();
  const value = await measure();
  options.onProgress?.(`bench: ${name} done in ${round((performance.now() - start) / 1000, 1)} s`);
  return value;
}

/** `redis` carries `workerMetrics` to every phase's workers (`startBenchWorker`). */
async function measureAll(
  redis: BenchRedis & BenchTarget,
  sizes: BenchSizes,
  options: BenchOptions,
) {
  const { concurrency } = sizes;
  const bullmq = await phase(options, "raw BullMQ", () =>
    measureBullmq(redis, sizes.bullmqJobs, concurrency),
  );
  const throughput = await phase(options, "errand end to end", () =>
    measureErrandThroughput(redis, sizes.e2eRuns, concurrency),
  );
  const latency = await phase(options, "errand latency", () =>
    measureErrandLatency(redis, sizes.latencyRuns, sizes.latencyRatePerSec, concurrency),
  );
  const latencyAof = await phase(options, "errand latency, AOF everysec", () =>
    measureErrandLatencyAof(redis, sizes.latencyRuns, sizes.latencyRatePerSec, concurrency),
  );
  const latencyAofSplit = await phase(
    options,
    "errand latency, AOF everysec, worker and collector in a child process",
    () =>
      measureErrandLatencyAof(
        redis,
        sizes.latencyRuns,
        sizes.latencyRatePerSec,
        concurrency,
        "split",
      ),
  );
  const roundTrips = await phase(options, "append round trips (MONITOR)", () =>
    measureAppendRoundTrips(redis, sizes.costSampleRuns, concurrency),
  );
  const collector = await phase(options, "collector backlog (and each part's CPU)", () =>
    measureCollectorBacklog(redis, sizes.collectorRuns, concurrency),
  );
  const xreadgroup = await phase(options, "raw XREADGROUP", () =>
    measureXreadgroup(redis, {
      entries: collector.events,
      streams: collector.shards,
      batchSize: COLLECTOR_BATCH_SIZE,
      sampleFields: collector.sampleFields,
    }),
  );
  return {
    bullmq,
    throughput,
    latency,
    latencyAof,
    latencyAofSplit,
    roundTrips,
    collector,
    xreadgroup,
  };
}

/**
 * Runs the bench on a fresh private Redis (never `REDIS_URL`'s: each phase
 * flushes it) and resolves with the report and its conditions. The worker,
 * the collector and the BullMQ baseline's worker run in this process.
 *
 * ```ts
 * const { report } = await runBench({ quick: true, onProgress: (line) => console.error(line) });
 * console.log(report.ratios.e2eVsBullmq);
 * ```
 */
export async function runBench(options: BenchOptions = {}): Promise<BenchResult> {
  const quick = options.quick ?? false;
  const sizes = resolveSizes(quick, options.sizes);
  const startedAt = new Date();
  const loadBefore = loadAverages();
  const server = await startBenchRedis(options.durability);
  const redis: BenchRedis = options.budget ? { ...server, budget: BENCH_BUDGET } : server;
  const tracing = options.tracing ? startBenchTracing() : undefined;
  try {
    const workerMetrics = options.metrics ?? true;
    const m = await measureAll({ ...redis, workerMetrics }, sizes, options);
    const spansExported = (await tracing?.stop()) ?? 0;
    const errandFigures = {
      e2eRunsPerSec: round(m.throughput.runsPerSec),
      latencyP50Ms: round(m.latency.p50Ms, 2),
      latencyP99Ms: round(m.latency.p99Ms, 2),
      latencyAofP50Ms: round(m.latencyAof.p50Ms, 2),
      latencyAofP99Ms: round(m.latencyAof.p99Ms, 2),
      latencyStagesP99Ms: roundStages(m.latency.profile.stagesP99Ms),
      latencyAofStagesP99Ms: roundStages(m.latencyAof.profile.stagesP99Ms),
      latencyAofSplitP50Ms: round(m.latencyAofSplit.p50Ms, 2),
      latencyAofSplitP99Ms: round(m.latencyAofSplit.p99Ms, 2),
      latencyAofSplitStagesP99Ms: roundStages(m.latencyAofSplit.profile.stagesP99Ms),
      nodeCpuUsPerRun: round(m.throughput.cpu.nodeUs),
      nodeHeapKbPerRun: round(m.throughput.heapKbPerRun, 1),
      redisCpuUsPerRun: round(m.throughput.cpu.redisUs),
      collectorEventsPerSec: round(m.collector.eventsPerSec),
      redisCommandsPerRun: round(m.throughput.commandsPerRun, 2),
      ownRedisCommandsPerRun: round(m.throughput.commandsPerRun - m.bullmq.commands.total, 2),
      ownRedisCommandsPerRunByName: ownCommandsByName(
        m.throughput.commandsPerRunByName,
        m.bullmq.commands.byName,
      ),
      redisRoundTripsPerStep: round(m.roundTrips.perStep, 2),
      redisBytesPerRun: round(m.throughput.bytesPerRun),
      redisBytesPerRunByKind: roundEach(m.throughput.bytesPerRunByKind, 0),
      workerRssMb: round(m.throughput.rssMb, 1),
    };
    return {
      report: {
        machine: machineInfo(),
        redis: { version: redis.version, persistence: "off" },
        baseline: {
          bullmqE2eJobsPerSec: round(m.bullmq.jobsPerSec),
          xreadgroupEventsPerSec: round(m.xreadgroup.eventsPerSec),
          bullmqCommandsPerJob: round(m.bullmq.commands.total, 2),
          bullmqCommandsPerJobByName: roundEach(m.bullmq.commands.byName, 2),
          bullmqRedisCpuUsPerJob: round(m.bullmq.cpu.redisUs),
        },
        errand: errandFigures,
        ratios: {
          e2eVsBullmq: round(m.throughput.runsPerSec / m.bullmq.jobsPerSec, 3),
          collectorVsXreadgroup: round(m.collector.eventsPerSec / m.xreadgroup.eventsPerSec, 3),
        },
      },
      conditions: {
        quick,
        sizes,
        tracing: tracing === undefined ? "off" : "sdk-in-memory",
        workerMetrics: options.metrics === false ? "off" : "on",
        budget: redis.budget === undefined ? "none" : "every-run",
        durability: redis.durability,
        spansExported,
        startedAt: startedAt.toISOString(),
        durationSec: round((Date.now() - startedAt.getTime()) / 1000, 1),
        loadBefore,
        loadAfter: loadAverages(),
        backlogEvents: m.collector.events,
        backlogStreams: m.collector.shards,
        attemptAppendsPerRun: round(m.roundTrips.attemptAppendsPerRun, 2),
        stepAppendsPerStep: round(m.roundTrips.stepAppendsPerStep, 2),
        latencyProfile: {
          off: roundProfile(m.latency.profile),
          aof: roundProfile(m.latencyAof.profile),
          aofSplit: roundProfile(m.latencyAofSplit.profile),
        },
        // A split phase always reports its parts' process.
        latencyAofSplitPartsProcess: roundProcess(m.latencyAofSplit.partsProcess!),
        latencyWarmupRuns: m.latency.warmupRuns + m.latencyAof.warmupRuns,
        latencyAofSplitWarmupRuns: m.latencyAofSplit.warmupRuns,
        shardStreamBytesPerRun: round(m.throughput.shardStreamBytesPerRun),
        // Its warm-up runs wrote to the file too.
        aofBytesPerRun: round(
          m.latencyAof.aofBytes / (sizes.latencyRuns + m.latencyAof.warmupRuns),
        ),
        commandsPerRunByName: roundEach(m.throughput.commandsPerRunByName, 2),
        cpu: {
          bullmqPerJob: roundCpu(m.bullmq.cpu),
          e2ePerRun: roundCpu(m.throughput.cpu),
          collectorPerEvent: roundCpu(m.collector.cpu),
          xreadgroupPerEvent: roundCpu(m.xreadgroup.cpu),
          partsPerRun: {
            fire: roundCpu(m.collector.parts.fire),
            worker: roundCpu(m.collector.parts.worker),
            collector: roundCpu(m.collector.parts.collector),
            collect: roundCpu(m.collector.parts.collect),
          },
        },
      },
    };
  } finally {
    await tracing?.stop();
    await redis.stop();
  }
}
