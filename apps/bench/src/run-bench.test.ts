/**
 * The bench's smoke test (CI runs it once): a whole bench on tiny sizes, on
 * its own fresh Redis, whose report has exactly the documented shape with
 * every figure a finite number. It asserts no threshold: speed is what the
 * bench reports, never what a test decides.
 */
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { formatBenchTable } from "./format-table.js";
import { LATENCY_STAGES } from "./latency-profile.js";
import { runBench } from "./run-bench.js";
import { BENCH_TINY_SIZES } from "./test-support/tiny-sizes.js";

const FIGURES = {
  baseline: [
    "bullmqE2eJobsPerSec",
    "xreadgroupEventsPerSec",
    "bullmqCommandsPerJob",
    "bullmqCommandsPerJobByName",
    "bullmqRedisCpuUsPerJob",
  ],
  errand: [
    "e2eRunsPerSec",
    "latencyP50Ms",
    "latencyP99Ms",
    "latencyAofP50Ms",
    "latencyAofP99Ms",
    "latencyStagesP99Ms",
    "latencyAofStagesP99Ms",
    "latencyAofSplitP50Ms",
    "latencyAofSplitP99Ms",
    "latencyAofSplitStagesP99Ms",
    "nodeCpuUsPerRun",
    "nodeHeapKbPerRun",
    "redisCpuUsPerRun",
    "collectorEventsPerSec",
    "redisCommandsPerRun",
    "ownRedisCommandsPerRun",
    "ownRedisCommandsPerRunByName",
    "redisRoundTripsPerStep",
    "redisBytesPerRun",
    "redisBytesPerRunByKind",
    "workerRssMb",
  ],
  ratios: ["e2eVsBullmq", "collectorVsXreadgroup"],
} as const;

/** The figures that are one number per command name. */
const BY_NAME_FIGURES = new Set<string>([
  "bullmqCommandsPerJobByName",
  "ownRedisCommandsPerRunByName",
]);

/** Asserts that `figures` holds a finite number per command name. */
function expectByName(figures: unknown, name: string): void {
  for (const [command, perUnit] of Object.entries(figures as Record<string, unknown>)) {
    expect(Number.isFinite(perUnit), `${name}.${command} = ${perUnit}`).toBe(true);
  }
}

/** The figures that are one number per latency stage. */
const STAGE_FIGURES = new Set<string>([
  "latencyStagesP99Ms",
  "latencyAofStagesP99Ms",
  "latencyAofSplitStagesP99Ms",
]);

/** Asserts that `figures` holds exactly one finite number per latency stage. */
function expectStageFigures(figures: unknown, name: string): void {
  const stages = figures as Record<string, unknown>;
  expect(Object.keys(stages).sort(), name).toEqual([...LATENCY_STAGES].sort());
  for (const stage of LATENCY_STAGES) {
    expect(Number.isFinite(stages[stage]), `${name}.${stage} = ${stages[stage]}`).toBe(true);
  }
}

/** Asserts that the bytes by kind of key are finite numbers, every settled run's log, head and result among them. */
function expectByKind(figures: unknown): void {
  const byKind = figures as Record<string, number>;
  for (const [kind, bytes] of Object.entries(byKind)) {
    expect(Number.isFinite(bytes), `redisBytesPerRunByKind.${kind} = ${bytes}`).toBe(true);
  }
  for (const kind of ["runLog", "runHead", "result", "runIndexes"]) {
    expect(byKind[kind], kind).toBeGreaterThan(0);
  }
  expect(byKind).toHaveProperty("unattributed");
}

describe("runBench", () => {
  it("reports { machine, redis, baseline, errand, ratios } with every figure a finite number", async () => {
    const progress: string[] = [];
    const { report, conditions } = await runBench({
      quick: true,
      sizes: BENCH_TINY_SIZES,
      onProgress: (line) => progress.push(line),
    });

    expect(Object.keys(report).sort()).toEqual([
      "baseline",
      "errand",
      "machine",
      "ratios",
      "redis",
    ]);
    for (const [group, names] of Object.entries(FIGURES)) {
      const figures = report[group as keyof typeof FIGURES] as unknown as Record<string, unknown>;
      expect(Object.keys(figures).sort()).toEqual([...names].sort());
      for (const name of names) {
        if (STAGE_FIGURES.has(name)) expectStageFigures(figures[name], `${group}.${name}`);
        else if (name === "redisBytesPerRunByKind") expectByKind(figures[name]);
        else if (BY_NAME_FIGURES.has(name)) expectByName(figures[name], `${group}.${name}`);
        else
          expect(Number.isFinite(figures[name]), `${group}.${name} = ${figures[name]}`).toBe(true);
      }
    }
    expect(Object.keys(report.machine).sort()).toEqual([
      "cpuModel",
      "cpus",
      "node",
      "platform",
      "totalMemGb",
    ]);
    expect(report.machine.node).toBe(process.version);
    expect(report.redis.persistence).toBe("off");
    expect(report.redis.version).toMatch(/^\d+\.\d+\.\d+$/);
    // Every run of the tiny sizes went through: a one-step run's first attempt is optimistic,
    // its run-started goes to the log with its step, in one append.
    expect(conditions.sizes).toMatchObject(BENCH_TINY_SIZES);
    expect(conditions.attemptAppendsPerRun).toBe(0);
    expect(conditions.stepAppendsPerStep).toBe(1);
    expect(report.errand.redisRoundTripsPerStep).toBe(1);
    // One shard entry a run: the worker's one append (fire's quiet opening writes none).
    expect(conditions.backlogEvents).toBe(BENCH_TINY_SIZES.collectorRuns);
    expect(conditions.shardStreamBytesPerRun).toBeGreaterThanOrEqual(0);
    expect(conditions).toMatchObject({ tracing: "off", spansExported: 0, workerMetrics: "on" });
    // Every latency phase was profiled: every stage, the event loop, GC and the server's latency monitor.
    expect(Object.keys(conditions.latencyProfile).sort()).toEqual(["aof", "aofSplit", "off"]);
    for (const [phase, profile] of Object.entries(conditions.latencyProfile)) {
      for (const stages of ["stagesP50Ms", "stagesP99Ms", "tailStagesMeanMs"] as const) {
        expectStageFigures(profile[stages], `${phase}.${stages}`);
      }
      for (const figure of [
        profile.eventLoopDelayP99Ms,
        profile.eventLoopDelayMaxMs,
        profile.gcPauses,
        profile.gcPauseTotalMs,
        profile.gcPauseMaxMs,
        profile.heapAllocatedMb,
        profile.heapAllocatedKbPerRun,
        ...Object.values(profile.redisLatencyMaxMs),
      ]) {
        expect(Number.isFinite(figure), `${phase}: ${figure}`).toBe(true);
      }
    }
    // The split phase's worker and collector watched their own process.
    for (const figure of Object.values(conditions.latencyAofSplitPartsProcess)) {
      expect(Number.isFinite(figure), `parts process: ${figure}`).toBe(true);
    }
    // Every run allocated on the heap, and the meter saw it.
    expect(report.errand.nodeHeapKbPerRun).toBeGreaterThan(0);
    expect(conditions.latencyProfile.aof.heapAllocatedKbPerRun).toBeGreaterThan(0);
    expect(conditions.latencyAofSplitWarmupRuns).toBeGreaterThanOrEqual(50);
    // The AOF phase ran with the file on: every run's writes went to it.
    expect(conditions.aofBytesPerRun).toBeGreaterThan(0);
    // The commands by name add up to the total, the append script among them.
    const byName = Object.values(conditions.commandsPerRunByName);
    const summed = byName.reduce((sum, perRun) => sum + perRun, 0);
    expect(Math.abs(summed - report.errand.redisCommandsPerRun)).toBeLessThan(0.01 * byName.length);
    expect(conditions.commandsPerRunByName.evalsha).toBeGreaterThan(0);
    // errand's own commands are the total less BullMQ's job, name by name: the append script's
    // XADDs (a run's log and shard stream) are errand's, BullMQ's job calls its own scripts too.
    const bullmq = report.baseline.bullmqCommandsPerJobByName;
    const own = report.errand.ownRedisCommandsPerRunByName;
    expect(bullmq.evalsha).toBeGreaterThan(0);
    expect(
      Math.abs(
        report.errand.ownRedisCommandsPerRun +
          report.baseline.bullmqCommandsPerJob -
          report.errand.redisCommandsPerRun,
      ),
    ).toBeLessThan(0.02);
    for (const [name, perRun] of Object.entries(own)) {
      const expected = (conditions.commandsPerRunByName[name] ?? 0) - (bullmq[name] ?? 0);
      expect(Math.abs(perRun - expected), name).toBeLessThan(0.02);
    }
    expect(own.xadd).toBeGreaterThan(0);
    expect(own.hmget).toBeGreaterThan(0);
    for (const [part, cpu] of Object.entries(conditions.cpu.partsPerRun)) {
      expect(Number.isFinite(cpu.nodeUs) && cpu.nodeUs > 0, `${part}: ${cpu.nodeUs}`).toBe(true);
      expect(Number.isFinite(cpu.redisUs), `${part}: ${cpu.redisUs}`).toBe(true);
    }
    expect(Object.keys(conditions.cpu.partsPerRun).sort()).toEqual([
      "collect",
      "collector",
      "fire",
      "worker",
    ]);
    expect(progress.some((line) => line.includes("raw BullMQ"))).toBe(true);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);

    const table = formatBenchTable({ report, conditions });
    expect(table).toContain(`redis: ${report.redis.version}, persistence off`);
    for (const figure of [
      "BullMQ e2e",
      "errand e2e",
      "errand parts",
      "latency p99",
      "latency AOF p99",
      "latency stages p99",
      "latency AOF stages p99",
      "latency AOF split p99",
      "latency AOF split stages p99",
      "event-loop delay p99",
      "node CPU per run",
      "BullMQ commands per job",
      "errand's own commands",
      "collector vs XREADGROUP",
    ]) {
      expect(table).toContain(figure);
    }
  });

  it("with tracing, records errand's spans with the SDK for the run, then uninstalls it", async () => {
    const { conditions, report } = await runBench({
      quick: true,
      tracing: true,
      sizes: BENCH_TINY_SIZES,
    });
    const { e2eRuns, latencyRuns, collectorRuns, costSampleRuns } = BENCH_TINY_SIZES;
    // The latency phase runs twice: persistence off, then with the append-only file, each after its warm-up runs.
    const latencyPhaseRuns = 2 * latencyRuns + conditions.latencyWarmupRuns;
    const runs = e2eRuns + latencyPhaseRuns + collectorRuns + costSampleRuns;
    // The split phase's worker runs in a child process without the SDK: only each run's send span is here.
    const splitRuns = latencyRuns + conditions.latencyAofSplitWarmupRuns;
    // Each one-step run: send, process, invoke_agent and chat.
    expect(conditions).toMatchObject({
      tracing: "sdk-in-memory",
      spansExported: runs * 4 + splitRuns,
    });
    expect(formatBenchTable({ report, conditions })).toContain(
      `--tracing (${conditions.spansExported} spans)`,
    );
    expect(trace.getTracer("after the bench").startSpan("probe").isRecording()).toBe(false);
  });

  it("without metrics, runs every phase's workers with prometheus: false", async () => {
    const { conditions, report } = await runBench({
      quick: true,
      metrics: false,
      sizes: BENCH_TINY_SIZES,
    });
    expect(conditions.workerMetrics).toBe("off");
    expect(conditions.attemptAppendsPerRun).toBe(0);
    expect(Number.isFinite(report.errand.e2eRunsPerSec)).toBe(true);
    expect(formatBenchTable({ report, conditions })).toContain("--no-metrics");
  });

  it('with durability "replicated", runs every phase beside a replica that acknowledges each settling append', async () => {
    const { conditions, report } = await runBench({
      quick: true,
      durability: "replicated",
      sizes: BENCH_TINY_SIZES,
    });
    // Without a replica in sync, every settling append would fail and no run would settle.
    expect(conditions.durability).toBe("replicated");
    expect(conditions.stepAppendsPerStep).toBe(1);
    expect(Number.isFinite(report.errand.e2eRunsPerSec)).toBe(true);
    expect(formatBenchTable({ report, conditions })).toContain("--durability replicated");
  });
});
