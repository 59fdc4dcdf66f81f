/**
 * The bench's figures: the report `--json` prints, exactly
 * `{ machine, redis, baseline, errand, ratios }`, and beside it the
 * conditions a person reading the table needs (sizes, load, breakdowns).
 */
import type { Durability } from "@errand/engine";
import type { CpuPerUnit } from "./cpu-meter.js";
import type { LatencyProfile, StageFigures } from "./latency-profile.js";
import type { MachineInfo } from "./machine.js";
import type { PartsCpu } from "./phases/collector-backlog.js";
import type { ProcessFigures } from "./process-watch.js";
import type { BenchSizes } from "./sizes.js";

/** The Redis the bench ran on. */
export interface RedisInfo {
  version: string;
  /**
   * Always `off`: the bench starts its server without RDB snapshots or an
   * append-only file (the AOF latency phase alone turns the file on).
   */
  persistence: "off";
}

/** Raw BullMQ and raw Redis streams, measured in the same run on the same server. */
export interface BaselineFigures {
  /** No-op BullMQ jobs added in bulk and completed by one worker, per second. */
  bullmqE2eJobsPerSec: number;
  /** Stream entries read with XREADGROUP and acknowledged with XACK, per second. */
  xreadgroupEventsPerSec: number;
  /**
   * Redis commands per BullMQ job of the same phase (`INFO commandstats`
   * calls, those inside BullMQ's scripts included), each job configured as
   * errand configures a run's job: errand's job options, a job id of its
   * own, a return value kept, errand's job locks. BullMQ's share of
   * `errand.redisCommandsPerRun`.
   */
  bullmqCommandsPerJob: number;
  /** {@link bullmqCommandsPerJob} by command name (`evalsha`, `xadd`, …), most called first. */
  bullmqCommandsPerJobByName: Record<string, number>;
  /** CPU (user + system, `INFO cpu`) of the Redis server per BullMQ job of the same phase, in µs. */
  bullmqRedisCpuUsPerJob: number;
}

/** errand's figures. */
export interface ErrandFigures {
  /** One-step runs fired with `fireMany`, executed, folded, and readable as results, per second. */
  e2eRunsPerSec: number;
  /** Median time from `fire` to `result` returning, at the offered rate, in ms. */
  latencyP50Ms: number;
  /** 99th percentile of the same, in ms. */
  latencyP99Ms: number;
  /** {@link latencyP50Ms} with the server's append-only file on (`appendonly yes`, `appendfsync everysec`). */
  latencyAofP50Ms: number;
  /** {@link latencyP99Ms} with the append-only file on, as {@link latencyAofP50Ms}. */
  latencyAofP99Ms: number;
  /**
   * The 99th percentile of each stage of the latency runs' way from `fire`
   * to `result`, in ms: `pickup`, `step`, `stream`, `index` and `wake` one
   * after the other, `fire` beside them (see `latency-profile.ts`).
   */
  latencyStagesP99Ms: StageFigures;
  /** {@link latencyStagesP99Ms} with the append-only file on. */
  latencyAofStagesP99Ms: StageFigures;
  /**
   * {@link latencyAofP50Ms} laid out as a deployment runs errand: the worker
   * and the collector in a child process of their own, the client (`fire`,
   * `result`) alone in the bench's process. The other latency figures run
   * all three in the bench's process.
   */
  latencyAofSplitP50Ms: number;
  /** {@link latencyAofP99Ms} laid out as {@link latencyAofSplitP50Ms}. */
  latencyAofSplitP99Ms: number;
  /** {@link latencyAofStagesP99Ms} laid out as {@link latencyAofSplitP50Ms}. */
  latencyAofSplitStagesP99Ms: StageFigures;
  /** CPU (user + system) of this process — client, worker and collector — per run, end to end, in µs. */
  nodeCpuUsPerRun: number;
  /**
   * The bytes this process's JavaScript heap allocated per run, end to end,
   * in KB (1,024 bytes): what its garbage collector has to sweep up
   * (`heap-meter.ts`; buffers outside the heap not counted).
   */
  nodeHeapKbPerRun: number;
  /** CPU (user + system, from `INFO cpu`) of the Redis server per run, end to end, in µs. */
  redisCpuUsPerRun: number;
  /** Shard stream entries (one per append: two a one-step run) a collector folds per second on a prepared backlog. */
  collectorEventsPerSec: number;
  /** `INFO commandstats` calls (script-internal ones included) per run, end to end. */
  redisCommandsPerRun: number;
  /**
   * errand's own share of {@link redisCommandsPerRun}: the commands per run
   * less BullMQ's per job (`baseline.bullmqCommandsPerJob`).
   */
  ownRedisCommandsPerRun: number;
  /**
   * {@link ownRedisCommandsPerRun} by command name: each name's calls per
   * run (`BenchConditions.commandsPerRunByName`) less BullMQ's per job
   * (`baseline.bullmqCommandsPerJobByName`), most first; names whose
   * difference rounds to 0 left out. A negative figure is a command the
   * bare BullMQ job called more often than a run's job did.
   */
  ownRedisCommandsPerRunByName: Record<string, number>;
  /** The worker's append script calls per step (its `run-started` included). */
  redisRoundTripsPerStep: number;
  /**
   * `used_memory` growth per settled run, in bytes: what a settled run keeps
   * (log, head, result, index entries, BullMQ's share). The shard streams'
   * growth is left out: their entries are trimmed behind the collectors
   * within `trimIntervalMs` (see `BenchConditions.shardStreamBytesPerRun`).
   */
  redisBytesPerRun: number;
  /**
   * The end-to-end phase's `used_memory` growth per run by kind of key, from
   * `MEMORY USAGE` of every key before and after (`runLog`, `runHead`,
   * `result`, `runIndexes`, `shardStreams`, `bullmqJobs`, `bullmqEvents`, …;
   * kinds that did not grow left out), with `unattributed`: what no key
   * counts (keyspace and expiry-table entries and buckets, allocator slack).
   */
  redisBytesPerRunByKind: Record<string, number>;
  /** RSS of the process running client, worker and collector, in MB. */
  workerRssMb: number;
}

/** errand against the baselines. */
export interface RatioFigures {
  /** `e2eRunsPerSec / bullmqE2eJobsPerSec`. */
  e2eVsBullmq: number;
  /** `collectorEventsPerSec / xreadgroupEventsPerSec`. */
  collectorVsXreadgroup: number;
}

/** What `errand bench --json` prints. */
export interface BenchReport {
  machine: MachineInfo;
  redis: RedisInfo;
  baseline: BaselineFigures;
  errand: ErrandFigures;
  ratios: RatioFigures;
}

/** How the figures were obtained: what the table shows beside them. */
export interface BenchConditions {
  quick: boolean;
  /** `off`: errand's spans were the API's no-ops; `sdk-in-memory`: the SDK recorded them (`--tracing`). */
  tracing: "off" | "sdk-in-memory";
  /** `on`: the workers kept their Prometheus metrics (the default); `off`: `prometheus: false` (`--no-metrics`). */
  workerMetrics: "on" | "off";
  /** Whether every errand run was fired with a budget (`--budget`). */
  budget: "none" | "every-run";
  /** The durability errand's parts appended with (`replicated`: a replica beside the server, `--durability replicated`). */
  durability: Durability;
  /** Spans the SDK exported during the run (0 with tracing off). */
  spansExported: number;
  sizes: BenchSizes;
  /** When the run started (ISO-8601). */
  startedAt: string;
  /** How long the whole run took, in seconds. */
  durationSec: number;
  /** Load averages (1, 5, 15 min) at the start and at the end. */
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
  /** Entries of the collector's backlog (and of the XREADGROUP baseline). */
  backlogEvents: number;
  /** Shard streams of the backlog (and streams of the XREADGROUP baseline). */
  backlogStreams: number;
  /** The worker's appends of a `run-started` alone per run in the round-trip sample (0 when every first attempt was optimistic). */
  attemptAppendsPerRun: number;
  /** The worker's step appends per step in the round-trip sample. */
  stepAppendsPerStep: number;
  /**
   * The latency phases' profiles, persistence off, with the append-only
   * file, and with the file and the worker and the collector in a child
   * process (`aofSplit`: its event-loop delay and GC pauses are the client's
   * process alone; see {@link latencyAofSplitPartsProcess}). Figures rounded.
   */
  latencyProfile: { off: LatencyProfile; aof: LatencyProfile; aofSplit: LatencyProfile };
  /** The event-loop delay and GC pauses of the split phase's child process (worker and collector). */
  latencyAofSplitPartsProcess: ProcessFigures;
  /**
   * The runs the two one-process latency phases offered before their clocks
   * started, not timed: 50 each, and more until every shard had one.
   */
  latencyWarmupRuns: number;
  /** The same for the split phase. */
  latencyAofSplitWarmupRuns: number;
  /** The shard streams' growth per run at the end of the end-to-end phase (`MEMORY USAGE`): entries not yet trimmed, left out of `redisBytesPerRun`. */
  shardStreamBytesPerRun: number;
  /** The append-only file's growth per run in the AOF latency phase (its warm-up runs counted), in bytes. */
  aofBytesPerRun: number;
  /** `redisCommandsPerRun` by command name (`evalsha`, `xadd`, …), most called first. */
  commandsPerRunByName: Record<string, number>;
  /** CPU microseconds per unit of each measured phase: this process and the Redis server. */
  cpu: {
    bullmqPerJob: CpuPerUnit;
    e2ePerRun: CpuPerUnit;
    collectorPerEvent: CpuPerUnit;
    xreadgroupPerEvent: CpuPerUnit;
    /** Per run, each part of errand measured alone (the collector phase's runs). */
    partsPerRun: PartsCpu;
  };
}

/** A finished bench: the report and its conditions. */
export interface BenchResult {
  report: BenchReport;
  conditions: BenchConditions;
}
