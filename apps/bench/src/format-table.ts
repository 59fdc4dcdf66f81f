/**
 * The bench for people: what ran where, then one line per figure with its
 * value and what it means.
 */
import { LATENCY_STAGES, type LatencyProfile, type StageFigures } from "./latency-profile.js";
import type { ProcessFigures } from "./process-watch.js";
import type { BenchResult } from "./report.js";

interface Row {
  figure: string;
  value: string;
  meaning: string;
}

const rate = (value: number, unit: string) =>
  `${Math.round(value).toLocaleString("en-US")} ${unit}`;
const cpu = ({ nodeUs, redisUs }: { nodeUs: number; redisUs: number }, unit: string) =>
  `CPU per ${unit}: node ${nodeUs} µs, redis ${redisUs} µs`;
const fixed = (value: number, digits: number, unit = "") =>
  `${value.toFixed(digits)}${unit === "" ? "" : ` ${unit}`}`;

/** `name count` of each command, most called first. */
const byName = (commands: Record<string, number>) =>
  Object.entries(commands)
    .map(([name, perRun]) => `${name} ${perRun}`)
    .join(", ");

/** `stage value` of each stage, in ms. */
const stageList = (stages: StageFigures) =>
  LATENCY_STAGES.map((stage) => `${stage} ${stages[stage].toFixed(2)}`).join(", ");

/** What a process did during a latency phase besides the runs. */
const processWatched = (figures: ProcessFigures) =>
  `event-loop delay p99 ${figures.eventLoopDelayP99Ms} ms, max ${figures.eventLoopDelayMaxMs} ms; ${figures.gcPauses} GC pauses, ${figures.gcPauseTotalMs} ms in all, longest ${figures.gcPauseMaxMs} ms; heap allocated ${figures.heapAllocatedMb} MB`;

/** What the process and the server did during a latency phase. */
const watched = (profile: LatencyProfile) => {
  const redisEvents = Object.entries(profile.redisLatencyMaxMs)
    .map(([event, maxMs]) => `${event} ${maxMs}`)
    .join(", ");
  return `${processWatched(profile)} (${profile.heapAllocatedKbPerRun} KB a run); Redis latency events (max ms): ${redisEvents === "" ? "none" : redisEvents}`;
};

/** The node CPU of a whole run: its parts' together. */
function partsNodeUs(parts: BenchResult["conditions"]["cpu"]["partsPerRun"]): number {
  return parts.fire.nodeUs + parts.worker.nodeUs + parts.collector.nodeUs + parts.collect.nodeUs;
}

function rows({ report, conditions }: BenchResult): Row[] {
  const { baseline, errand, ratios } = report;
  const { sizes, cpu: spent } = conditions;
  return [
    {
      figure: "BullMQ e2e",
      value: rate(baseline.bullmqE2eJobsPerSec, "jobs/s"),
      meaning: `${sizes.bullmqJobs} no-op jobs, addBulk, 1 worker at concurrency ${sizes.concurrency}; ${cpu(spent.bullmqPerJob, "job")}`,
    },
    {
      figure: "XREADGROUP+XACK",
      value: rate(baseline.xreadgroupEventsPerSec, "events/s"),
      meaning: `${conditions.backlogEvents} entries over ${conditions.backlogStreams} streams, one loop each; ${cpu(spent.xreadgroupPerEvent, "event")}`,
    },
    {
      figure: "errand e2e",
      value: rate(errand.e2eRunsPerSec, "runs/s"),
      meaning: `${sizes.e2eRuns} one-step runs: fireMany → worker → collector → collect`,
    },
    {
      figure: "node CPU per run",
      value: rate(errand.nodeCpuUsPerRun, "µs"),
      meaning: "this process (client, worker, collector), user + system, end to end",
    },
    {
      figure: "node heap per run",
      value: rate(errand.nodeHeapKbPerRun, "KB"),
      meaning:
        "bytes this process's JavaScript heap allocated, end to end (buffers outside it not counted)",
    },
    {
      figure: "redis CPU per run",
      value: rate(errand.redisCpuUsPerRun, "µs"),
      meaning: "the Redis server (INFO cpu), user + system, end to end",
    },
    {
      figure: "latency p50",
      value: fixed(errand.latencyP50Ms, 2, "ms"),
      meaning: `fire → result, ${sizes.latencyRuns} runs at ${sizes.latencyRatePerSec} runs/s`,
    },
    {
      figure: "latency p99",
      value: fixed(errand.latencyP99Ms, 2, "ms"),
      meaning: "same runs, 99th percentile",
    },
    {
      figure: "latency stages p99",
      value: "ms",
      meaning: `${stageList(errand.latencyStagesP99Ms)}; tail (mean over the slowest 1 %): ${stageList(conditions.latencyProfile.off.tailStagesMeanMs)}`,
    },
    {
      figure: "latency profile",
      value: "",
      meaning: watched(conditions.latencyProfile.off),
    },
    {
      figure: "latency AOF p50",
      value: fixed(errand.latencyAofP50Ms, 2, "ms"),
      meaning: "the same runs with appendonly yes, appendfsync everysec",
    },
    {
      figure: "latency AOF p99",
      value: fixed(errand.latencyAofP99Ms, 2, "ms"),
      meaning: "same runs, 99th percentile",
    },
    {
      figure: "latency AOF stages p99",
      value: "ms",
      meaning: `${stageList(errand.latencyAofStagesP99Ms)}; tail (mean over the slowest 1 %): ${stageList(conditions.latencyProfile.aof.tailStagesMeanMs)}`,
    },
    {
      figure: "latency AOF profile",
      value: "",
      meaning: watched(conditions.latencyProfile.aof),
    },
    {
      figure: "latency AOF split p50",
      value: fixed(errand.latencyAofSplitP50Ms, 2, "ms"),
      meaning:
        "the AOF runs with the worker and the collector in a child process, the client alone in this one",
    },
    {
      figure: "latency AOF split p99",
      value: fixed(errand.latencyAofSplitP99Ms, 2, "ms"),
      meaning: "same runs, 99th percentile",
    },
    {
      figure: "latency AOF split stages p99",
      value: "ms",
      meaning: `${stageList(errand.latencyAofSplitStagesP99Ms)}; tail (mean over the slowest 1 %): ${stageList(conditions.latencyProfile.aofSplit.tailStagesMeanMs)}`,
    },
    {
      figure: "latency AOF split profile",
      value: "",
      meaning: `client process: ${watched(conditions.latencyProfile.aofSplit)}; worker and collector process: ${processWatched(conditions.latencyAofSplitPartsProcess)}`,
    },
    {
      figure: "collector",
      value: rate(errand.collectorEventsPerSec, "events/s"),
      meaning: `folding a backlog of ${conditions.backlogEvents} events (${sizes.collectorRuns} runs); ${cpu(spent.collectorPerEvent, "event")}`,
    },
    {
      figure: "errand parts",
      value: `${Math.round(partsNodeUs(spent.partsPerRun))} µs/run`,
      meaning: `node CPU per run, each part alone: fire ${spent.partsPerRun.fire.nodeUs} µs, worker ${spent.partsPerRun.worker.nodeUs} µs, collector ${spent.partsPerRun.collector.nodeUs} µs, collect ${spent.partsPerRun.collect.nodeUs} µs (BullMQ's job included)`,
    },
    {
      figure: "commands per run",
      value: fixed(errand.redisCommandsPerRun, 1),
      meaning: `INFO commandstats calls / runs, end to end (inside scripts too): ${byName(conditions.commandsPerRunByName)}`,
    },
    {
      figure: "BullMQ commands per job",
      value: fixed(baseline.bullmqCommandsPerJob, 1),
      meaning: `the BullMQ baseline's job, configured as errand's (job options, job id, return value, locks); redis CPU ${baseline.bullmqRedisCpuUsPerJob} µs a job: ${byName(baseline.bullmqCommandsPerJobByName)}`,
    },
    {
      figure: "errand's own commands",
      value: fixed(errand.ownRedisCommandsPerRun, 1),
      meaning: `commands per run less BullMQ's per job, by name: ${byName(errand.ownRedisCommandsPerRunByName)}`,
    },
    {
      figure: "round trips per step",
      value: fixed(errand.redisRoundTripsPerStep, 2),
      meaning: `worker appends / steps: ${fixed(conditions.attemptAppendsPerRun, 2)} run-started alone per run + ${fixed(conditions.stepAppendsPerStep, 2)} per step (optimisticStart: the first carries run-started)`,
    },
    {
      figure: "Redis bytes per run",
      value: rate(errand.redisBytesPerRun, "B"),
      meaning: `used_memory growth / settled runs (logs, results, indexes kept), without the shard streams' ${rate(conditions.shardStreamBytesPerRun, "B")} a run until trimmed; by key kind (MEMORY USAGE): ${byName(errand.redisBytesPerRunByKind)}`,
    },
    {
      figure: "worker RSS",
      value: fixed(errand.workerRssMb, 1, "MB"),
      meaning: "this process: client, worker and collector",
    },
    {
      figure: "e2e vs BullMQ",
      value: fixed(ratios.e2eVsBullmq, 2),
      meaning: "errand e2e runs/s ÷ BullMQ jobs/s",
    },
    {
      figure: "collector vs XREADGROUP",
      value: fixed(ratios.collectorVsXreadgroup, 2),
      meaning: "collector events/s ÷ XREADGROUP events/s",
    },
  ];
}

/** The bench as a table for people, ending with a newline. */
export function formatBenchTable(result: BenchResult): string {
  const { machine, redis } = result.report;
  const { conditions } = result;
  const table = rows(result);
  const width = (pick: (row: Row) => string, title: string) =>
    Math.max(title.length, ...table.map((row) => pick(row).length));
  const figureWidth = width((row) => row.figure, "figure");
  const valueWidth = width((row) => row.value, "value");
  const line = (figure: string, value: string, meaning: string) =>
    `${figure.padEnd(figureWidth)}  ${value.padStart(valueWidth)}  ${meaning}`.trimEnd();
  const quick = conditions.quick ? " --quick" : "";
  const tracing =
    conditions.tracing === "off" ? "" : ` --tracing (${conditions.spansExported} spans)`;
  const metrics = conditions.workerMetrics === "off" ? " --no-metrics" : "";
  const durability =
    conditions.durability === "replicated" ? " --durability replicated (a replica beside it)" : "";
  return [
    `errand bench${quick}${tracing}${metrics}${durability}${conditions.budget === "every-run" ? " --budget" : ""} — ${conditions.startedAt}, ${conditions.durationSec} s`,
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.totalMemGb} GiB, ${machine.platform}, node ${machine.node}`,
    `load average: ${conditions.loadBefore.join(" ")} before, ${conditions.loadAfter.join(" ")} after`,
    `redis: ${redis.version}, persistence ${redis.persistence}, a private server flushed between phases`,
    "everything (BullMQ's worker, errand's client, worker and collector) ran in this one process, but the split latency phase's worker and collector",
    "",
    line("figure", "value", "what it measures"),
    line("-".repeat(figureWidth), "-".repeat(valueWidth), "-".repeat(16)),
    ...table.map((row) => line(row.figure, row.value, row.meaning)),
    "",
  ].join("\n");
}
