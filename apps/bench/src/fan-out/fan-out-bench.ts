/**
 * `errand bench --fan-out N`: one parent fanning out to N children on a
 * fresh private Redis, with the client, a worker (concurrency 50) and a
 * collector in this process. The parent (`fan-out-parent.ts`) spawns its
 * children in `spawn_agents` batches of 1,000, parks on `collect_agents`
 * with `wait: true`, then pages through every child. The figures: the total
 * time, children a second and time per child; the Redis bytes a child left
 * (`used_memory` after, less before and less the shard streams' entries not
 * yet trimmed, over N), and the same by kind of key (`key-kinds.ts`); each process's peak RSS (this
 * one's and the server's); the parent's collect pages a second; and per
 * phase (spawning, settling, collecting) the Redis commands by name and the
 * slowest commands of `SLOWLOG`, the figures that name a cost growing with
 * the tree. The run checks its own answer: every child collected, counted.
 */
import { readFile } from "node:fs/promises";
import { ErrandError } from "@errand/core";
import { createWorker, type FireSpec, type WorkerOptions } from "@errand/engine";
import type { Redis } from "ioredis";
import { benchAgent } from "../bench-agent.js";
import {
  type CommandsPerUnit,
  commandCalls,
  commandsPerUnit,
  readInfo,
  startBenchRedis,
  usedMemory,
} from "../bench-redis.js";
import { type CpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import { type ErrandStack, SILENT_LOGGER, startErrandStack } from "../errand-stack.js";
import { bytesByKeyKind, bytesPerRunByKind, type KeyKindBytes } from "../key-kinds.js";
import { loadAverages, type MachineInfo, machineInfo } from "../machine.js";
import { type MemoryFigures, startMemorySampler } from "../memory-sampler.js";
import { perSecond, round } from "../stats.js";
import {
  FAN_OUT_OUTPUT_SCHEMA,
  FAN_OUT_PARENT,
  type FanOutOutput,
  type FanOutPhase,
  type FanOutPlan,
  fanOutParent,
} from "./fan-out-parent.js";

/** Children per `spawn_agents` call. */
export const FAN_OUT_BATCH = 1_000;

/** Results per `collect_agents` page: a page of bench results stays within the tool text limit. */
export const FAN_OUT_PAGE_LIMIT = 100;

/** The worker's slots. */
const FAN_OUT_CONCURRENCY = 50;

/**
 * The worker's job locks: a minute, not errand's 5 s. On a shared machine the
 * bench gets a small share of the cores, and the parent's steps over every
 * child (its park, its first page) can keep one job's renewal waiting past
 * 5 s; the bench measures what a child costs, not how the lock copes.
 */
const FAN_OUT_LOCK_MS = 60_000;

/** The memory sampler's last phase: from the parent's last page to its result (its last step, the collector's fold of it). */
export const PARENT_SETTLED = "parentSettled";

/** The slowest commands kept per phase. */
const SLOWLOG_ENTRIES = 5;

/** Options of {@link runFanOutBench}. */
export interface FanOutBenchOptions {
  children: number;
  onProgress(line: string): void;
  /** Children per `spawn_agents` call; default {@link FAN_OUT_BATCH} (tests take fewer). */
  batch?: number;
}

/** One phase of the fan-out: how long it took and what Redis did meanwhile. */
export interface FanOutPhaseFigures {
  phase: FanOutPhase;
  seconds: number;
  /** CPU spent in this phase, ms: this process's and the Redis server's. */
  cpuMs: { node: number; redis: number };
  /** Commands per child in this phase, by name. */
  commandsPerChild: CommandsPerUnit;
  /** The slowest commands Redis logged in this phase (`SLOWLOG GET`), µs and name. */
  slowest: { micros: number; command: string }[];
  /**
   * Redis `used_memory` when the phase ended, less before the fan-out, per
   * child: at the end of spawning, every child is written and most still
   * wait queued (the server's high water mark of a large fan-out).
   */
  redisBytesPerChild: number;
}

/** What `errand bench --fan-out N --json` prints. */
export interface FanOutReport {
  machine: MachineInfo;
  loadBefore: number[];
  loadAfter: number[];
  children: number;
  batch: number;
  pageLimit: number;
  concurrency: number;
  seconds: number;
  childrenPerSec: number;
  /** Wall time per child, µs. */
  usPerChild: number;
  /** CPU per child, µs: this process's (client, worker, collector) and the Redis server's. */
  cpuUsPerChild: CpuPerUnit;
  /**
   * Redis `used_memory` after less before, per child, the shard streams'
   * growth left out (as `errand.redisBytesPerRun` of `errand bench`): their
   * entries are trimmed behind the collectors, so they are not what a child
   * keeps.
   */
  redisBytesPerChild: number;
  /** The shard streams' growth per child (`MEMORY USAGE`): entries not yet trimmed when the parent ended. */
  shardStreamBytesPerChild: number;
  /**
   * The same growth per child by kind of key (`runLog`, `runHead`, `result`,
   * `children`, `runIndexes`, `shardStreams`, `bullmqJobs`, …: `MEMORY
   * USAGE` of every key), with `unattributed` the part no key's counts.
   */
  redisBytesPerChildByKind: Record<string, number>;
  /** Peak resident set, MB: this process (client, worker, collector) and the Redis server. */
  peakRssMb: { node: number; redis: number };
  /** The parent's `collect_agents` pages a second, after its wait. */
  collectPagesPerSec: number;
  /**
   * This process's memory sampled through the fan-out (`memory-sampler.ts`):
   * the peak of each part of `process.memoryUsage()` by phase (the three
   * phases, then `parentSettled`: from the last page to the parent's result),
   * and V8's heap spaces at the highest RSS.
   */
  memory: MemoryFigures;
  /** What the parent recorded: every child spawned and collected, counted by status. */
  parent: FanOutOutput;
  phases: FanOutPhaseFigures[];
}

/** The server's peak resident set, MB (`VmHWM` of its process), or NaN where /proc is not readable. */
export async function serverPeakRssMb(admin: Redis): Promise<number> {
  const pid = (await readInfo(admin, "server")).get("process_id");
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? Number.NaN : round(Number(kb) / 1024);
  } catch {
    return Number.NaN;
  }
}

/** A logged command's name, with a script's SHA cut short and a script's text left out. */
function commandName(args: readonly string[]): string {
  const [name = "", first = ""] = args;
  return name.toLowerCase() === "evalsha" ? `evalsha ${first.slice(0, 8)}` : name.toLowerCase();
}

/** The slowest entries of `SLOWLOG GET`, then empties the log. */
export async function drainSlowlog(admin: Redis): Promise<FanOutPhaseFigures["slowest"]> {
  const entries = (await admin.call("SLOWLOG", "GET", String(SLOWLOG_ENTRIES * 20))) as [
    number,
    number,
    number,
    string[],
  ][];
  await admin.call("SLOWLOG", "RESET");
  return entries
    .map(([, , micros, args]) => ({ micros, command: commandName(args) }))
    .sort((a, b) => b.micros - a.micros)
    .slice(0, SLOWLOG_ENTRIES);
}

/** The parent's run and recorded output, and when it ended (`performance.now()`). */
export interface FannedOutParent {
  runId: string;
  endedAt: number;
  parent: FanOutOutput;
}

/**
 * Fires the fan-out parent for `children` children and waits for it to
 * settle; throws unless it succeeded with every child collected and
 * succeeded.
 */
export async function awaitFannedOutParent(
  errand: ErrandStack["errand"],
  children: number,
): Promise<FannedOutParent> {
  const spec: FireSpec = {
    agent: FAN_OUT_PARENT,
    input: { children },
    outputSchema: { ...FAN_OUT_OUTPUT_SCHEMA },
  };
  const { runId } = await errand.fire(spec);
  const result = await errand.result(runId, { waitMs: 24 * 3_600_000 });
  const endedAt = performance.now();
  if (result === undefined) throw new ErrandError("internal", "the fan-out parent never ended");
  if (result.status !== "succeeded") {
    throw new ErrandError(
      "internal",
      `the fan-out parent ended ${result.status}: ${result.error?.message ?? "no error"}`,
    );
  }
  const parent = result.output as FanOutOutput;
  if (parent.collected !== children || parent.succeeded !== children) {
    throw new ErrandError(
      "internal",
      `the fan-out parent collected ${parent.collected} children (${parent.succeeded} succeeded) of ${children}`,
    );
  }
  return { runId, endedAt, parent };
}

/** The fan-out worker's options but its connection: the bench agent and the parent, one child per row allowed. */
export function fanOutWorkerOptions(plan: FanOutPlan) {
  return {
    agents: [benchAgent(), fanOutParent(plan)],
    concurrency: FAN_OUT_CONCURRENCY,
    lockDuration: FAN_OUT_LOCK_MS,
    optimisticStart: true,
    parentLimits: { maxChildrenPerParent: plan.children },
    logger: SILENT_LOGGER,
    prometheus: false,
    schedules: false,
  } satisfies Partial<WorkerOptions>;
}

/** What a fan-out measured, from which {@link fanOutReport} computes its figures. */
export interface FanOutMeasures {
  loadBefore: number[];
  children: number;
  batch: number;
  /** `performance.now()` when the parent was fired and when it ended. */
  start: number;
  end: number;
  /** When each phase ended (`performance.now()`), by phase. */
  times: ReadonlyMap<FanOutPhase, number>;
  parent: FanOutOutput;
  phases: FanOutPhaseFigures[];
  /** CPU over the fan-out, ms: this process's and Redis'. */
  cpuMs: { node: number; redis: number };
  redisBytes: number;
  /** `MEMORY USAGE` by kind of key before the fan-out and after it. */
  kinds: { before: KeyKindBytes; after: KeyKindBytes };
  redisPeakRssMb: number;
  memory: MemoryFigures;
}

/** The report's figures from what a fan-out measured. */
export function fanOutReport(measures: FanOutMeasures): FanOutReport {
  const { children, start, end, times, parent, kinds } = measures;
  const shardStreamBytes =
    (kinds.after.bytes.shardStreams ?? 0) - (kinds.before.bytes.shardStreams ?? 0);
  const seconds = (end - start) / 1000;
  const collectMs = (times.get("collected") ?? end) - (times.get("settled") ?? end);
  return {
    machine: machineInfo(),
    loadBefore: measures.loadBefore,
    loadAfter: loadAverages(),
    children,
    batch: measures.batch,
    pageLimit: FAN_OUT_PAGE_LIMIT,
    concurrency: FAN_OUT_CONCURRENCY,
    seconds: round(seconds, 2),
    childrenPerSec: round(perSecond(children, end - start)),
    usPerChild: round((seconds * 1e6) / children),
    cpuUsPerChild: {
      nodeUs: round((measures.cpuMs.node * 1000) / children),
      redisUs: round((measures.cpuMs.redis * 1000) / children),
    },
    redisBytesPerChild: round((measures.redisBytes - shardStreamBytes) / children),
    shardStreamBytesPerChild: round(shardStreamBytes / children),
    redisBytesPerChildByKind: Object.fromEntries(
      Object.entries(
        bytesPerRunByKind(kinds.before, kinds.after, measures.redisBytes, children),
      ).map(([kind, bytes]) => [kind, round(bytes)]),
    ),
    peakRssMb: {
      node: round(process.resourceUsage().maxRSS / 1024),
      redis: measures.redisPeakRssMb,
    },
    collectPagesPerSec: round(perSecond(parent.pages, collectMs)),
    memory: measures.memory,
    parent,
    phases: measures.phases,
  };
}

/** Runs one fan-out of `options.children` children and measures it. */
export async function runFanOutBench(options: FanOutBenchOptions): Promise<FanOutReport> {
  const { children, onProgress } = options;
  const batch = options.batch ?? FAN_OUT_BATCH;
  const loadBefore = loadAverages();
  const redis = await startBenchRedis();
  const { admin } = redis;
  try {
    await admin.config("SET", "slowlog-log-slower-than", "1000");
    await admin.call("SLOWLOG", "RESET");
    const kindsBefore = await bytesByKeyKind(admin);
    const memoryBefore = await usedMemory(admin);
    const meter = await startCpuMeter(admin);
    const memory = startMemorySampler();
    const start = performance.now();
    let phaseStart = start;
    let callsBefore = await commandCalls(admin);
    let phaseMeter = await startCpuMeter(admin);
    const phases: FanOutPhaseFigures[] = [];
    const times = new Map<FanOutPhase, number>();
    const onPhase = async (phase: FanOutPhase) => {
      const now = performance.now();
      memory.phase(phase);
      const calls = await commandCalls(admin);
      const spent = await phaseMeter.read();
      phases.push({
        phase,
        seconds: round((now - phaseStart) / 1000, 2),
        cpuMs: { node: round(spent.nodeMs), redis: round(spent.redisMs) },
        commandsPerChild: commandsPerUnit(callsBefore, calls, children),
        slowest: await drainSlowlog(admin),
        redisBytesPerChild: round(((await usedMemory(admin)) - memoryBefore) / children),
      });
      times.set(phase, now);
      onProgress(`${phase} after ${round((now - start) / 1000, 1)} s`);
      callsBefore = calls;
      phaseMeter = await startCpuMeter(admin);
      phaseStart = now;
    };
    const plan = { children, batch, pageLimit: FAN_OUT_PAGE_LIMIT, onPhase };
    const stack = await startErrandStack({ redis, concurrency: 1, worker: false });
    const worker = await createWorker({
      connection: redis.url,
      ...fanOutWorkerOptions(plan),
    });
    try {
      onProgress(`fanning out to ${children} children, ${batch} a spawn_agents call`);
      const { endedAt: end, parent } = await awaitFannedOutParent(stack.errand, children);
      // From the last page to the parent's result: its last step, and the collector folding it.
      memory.phase(PARENT_SETTLED);
      const memoryAfter = await usedMemory(admin);
      const cpu = await meter.read();
      onProgress("reading every key's MEMORY USAGE");
      const kindsAfter = await bytesByKeyKind(admin);
      return fanOutReport({
        loadBefore,
        children,
        batch,
        start,
        end,
        times,
        parent,
        phases,
        cpuMs: { node: cpu.nodeMs, redis: cpu.redisMs },
        redisBytes: memoryAfter - memoryBefore,
        kinds: { before: kindsBefore, after: kindsAfter },
        redisPeakRssMb: await serverPeakRssMb(admin),
        memory: memory.stop(),
      });
    } finally {
      await worker.close({ graceMs: 0 });
      await stack.stop();
    }
  } finally {
    await redis.stop();
  }
}

/** The memory figures as lines for a terminal. */
function formatMemory(memory: MemoryFigures): string[] {
  const parts = (peaks: MemoryFigures["atPeak"]) =>
    `rss ${peaks.rss}, heapTotal ${peaks.heapTotal}, heapUsed ${peaks.heapUsed}, external ${peaks.external}, arrayBuffers ${peaks.arrayBuffers} MB`;
  return [
    ...Object.entries(memory.byPhase).map(
      ([phase, peaks]) => `  memory peaks ${phase}: ${parts(peaks)}`,
    ),
    `  memory at the highest RSS: ${parts(memory.atPeak)}; heap spaces (size/used MB) ${memory.heapSpacesAtPeak
      .map((space) => `${space.space} ${space.size}/${space.used}`)
      .join(", ")}`,
  ];
}

/** The report as lines for a terminal. */
export function formatFanOutBench(report: FanOutReport): string {
  const lines = [
    `machine: ${report.machine.cpus} cores (${report.machine.cpuModel}); load before ${report.loadBefore.join(" ")}, after ${report.loadAfter.join(" ")}`,
    `one parent, ${report.children} children (${report.batch} a spawn_agents call, worker concurrency ${report.concurrency}, ${report.pageLimit} results a collect page)`,
    `  ${report.seconds} s: ${report.childrenPerSec} children/s, ${report.usPerChild} µs a child`,
    `  CPU a child: node ${report.cpuUsPerChild.nodeUs} µs, redis ${report.cpuUsPerChild.redisUs} µs`,
    `  Redis: ${report.redisBytesPerChild} bytes a child (and ${report.shardStreamBytesPerChild} of shard stream entries not yet trimmed); peak RSS: node ${report.peakRssMb.node} MB, redis ${report.peakRssMb.redis} MB`,
    `  Redis bytes a child by kind of key: ${Object.entries(report.redisBytesPerChildByKind)
      .map(([kind, bytes]) => `${kind} ${bytes}`)
      .join(", ")}`,
    ...formatMemory(report.memory),
    `  collect: ${report.parent.pages} pages, ${report.collectPagesPerSec} pages/s; collected ${report.parent.collected}, succeeded ${report.parent.succeeded}`,
    ...report.phases.map(
      (phase) =>
        `  ${phase.phase} in ${phase.seconds} s (CPU node ${phase.cpuMs.node} ms, redis ${phase.cpuMs.redis} ms): ${round(phase.commandsPerChild.total, 1)} Redis commands a child, ${phase.redisBytesPerChild} Redis bytes a child so far; slowest ${phase.slowest.map((s) => `${s.command} ${s.micros} µs`).join(", ") || "none over 1 ms"}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
