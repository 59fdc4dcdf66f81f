/**
 * The collector on a prepared backlog, and the CPU of each part of a run
 * alone: the runs are fired with no worker running (`fireMany`), then
 * executed by a worker with no collector running, so their events pile up in
 * the shard streams (while it works, the bench only reads the streams'
 * lengths, so that the worker's figure holds little of the bench's own
 * work); the worker stops; then a collector starts and the clock
 * runs until its metrics show every shard drained (nothing undelivered,
 * nothing pending); then `collect` reads every result and checks it. The
 * backlog's entries are sampled for the XREADGROUP baseline, which reads the
 * same entries.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError } from "@errand/core";
import { type Collector, createCollector, type Errand } from "@errand/engine";
import type { BenchRedis } from "../bench-redis.js";
import { type CpuPerUnit, cpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import {
  fireBenchRuns,
  SILENT_LOGGER,
  startBenchWorker,
  startErrandStack,
  waitForResults,
} from "../errand-stack.js";
import { perSecond } from "../stats.js";

/** The CPU per run of each part of errand, each measured alone. */
export interface PartsCpu {
  /** `fireMany`, with no worker running (BullMQ's `addBulk` included). */
  fire: CpuPerUnit;
  /** A worker executing the runs, with no collector running (BullMQ's job handling included). */
  worker: CpuPerUnit;
  /** The collector folding the runs' events into their results. */
  collector: CpuPerUnit;
  /** `collect` reading every result. */
  collect: CpuPerUnit;
}

/** What the collector phase measured. */
export interface CollectorBacklog {
  /** Shard stream entries folded and acknowledged per second. */
  eventsPerSec: number;
  /** CPU per entry. */
  cpu: CpuPerUnit;
  /** CPU per run of each part. */
  parts: PartsCpu;
  /** The entries of the backlog. */
  events: number;
  /** The shard streams it was spread over. */
  shards: number;
  /** Field lists of entries of the backlog, for the XREADGROUP baseline. */
  sampleFields: string[][];
}

/** The collector's entries per read (its default). */
export const COLLECTOR_BATCH_SIZE = 100;

const SAMPLE_ENTRIES = 1_000;
const TIMEOUT_MS = 600_000;
/**
 * How often the bench looks while a part works: the shard streams' lengths while the worker
 * runs (1 command per shard), the collector's metrics while it drains (2 per shard).
 */
const POLL_MS = 20;

/** Heads read per check while waiting for the backlog's runs. */
const HEAD_CHECK = 200;

/**
 * Resolves once every run of `runIds` has a settled head (its terminal event
 * is logged). Runs settle about in the order they were fired, so each check
 * reads the heads of the first open runs only.
 */
async function waitUntilSettledInLog(errand: Errand, runIds: readonly string[]): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  let open = [...runIds];
  while (open.length > 0) {
    if (Date.now() > deadline)
      throw new ErrandError("internal", "the backlog's runs did not settle");
    const checked = open.slice(0, HEAD_CHECK);
    const heads = await Promise.all(checked.map((runId) => errand.store.readHead(runId)));
    const stillOpen = checked.filter((_, index) => heads[index]?.settledAt === undefined);
    if (stillOpen.length === checked.length) await delay(20);
    open = [...stillOpen, ...open.slice(HEAD_CHECK)];
  }
}

/** The entries of every shard stream together. */
async function shardEntries(redis: BenchRedis, errand: Errand): Promise<number> {
  const shards = Array.from({ length: errand.store.shards }, (_, shard) => shard);
  const lengths = await Promise.all(
    shards.map((shard) => redis.admin.xlen(errand.store.keys.shardEvents(shard))),
  );
  return lengths.reduce((sum, length) => sum + length, 0);
}

/**
 * Resolves once the shard streams hold `entries` entries or more, reading
 * only their lengths (one XLEN per shard every {@link POLL_MS}): reading the
 * runs' heads all the while the worker works cost the bench's process about
 * as much as a third of the worker's own CPU.
 */
async function waitForShardEntries(
  redis: BenchRedis,
  errand: Errand,
  entries: number,
): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while ((await shardEntries(redis, errand)) < entries) {
    if (Date.now() > deadline)
      throw new ErrandError("internal", "the backlog's runs did not settle");
    await delay(POLL_MS);
  }
}

/** The entries of every shard stream, and a sample of their fields. */
async function backlogOf(
  redis: BenchRedis,
  errand: Errand,
): Promise<{ events: number; sampleFields: string[][] }> {
  const sample = (await redis.admin.xrange(
    errand.store.keys.shardEvents(0),
    "-",
    "+",
    "COUNT",
    SAMPLE_ENTRIES,
  )) as [string, string[]][];
  return {
    events: await shardEntries(redis, errand),
    sampleFields: sample.map(([, fields]) => fields),
  };
}

/** Runs `work` and resolves with its value and the CPU it took per run of `runs`. */
async function metered<T>(
  redis: BenchRedis,
  runs: number,
  work: () => Promise<T>,
): Promise<{ value: T; cpu: CpuPerUnit }> {
  const meter = await startCpuMeter(redis.admin);
  const value = await work();
  return { value, cpu: cpuPerUnit(await meter.read(), runs) };
}

/** `cpu` times `factor` (per run to per event: runs / events). */
function scaled(cpu: CpuPerUnit, factor: number): CpuPerUnit {
  return { nodeUs: cpu.nodeUs * factor, redisUs: cpu.redisUs * factor };
}

/** Resolves once the collector's metrics show every shard drained. */
async function drained(collector: Collector): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const metrics = await collector.metrics();
    if (metrics.shards.every((shard) => shard.lag === 0 && shard.pending === 0)) return;
    if (Date.now() > deadline) throw new ErrandError("internal", "the collector did not drain");
    await delay(POLL_MS);
  }
}

/** Measures a collector folding the events of `runs` settled runs, and each part's CPU. */
export async function measureCollectorBacklog(
  redis: BenchRedis,
  runs: number,
  concurrency: number,
): Promise<CollectorBacklog> {
  await redis.flush();
  const stack = await startErrandStack({
    redis,
    concurrency,
    collector: false,
    worker: false,
  });
  try {
    // A worker registers the bench agent and leaves: the runs are fired with none running.
    await (await startBenchWorker(redis, concurrency)).close({ graceMs: 0 });
    const fire = await metered(redis, runs, () => fireBenchRuns(stack, runs));
    const runIds = fire.value;
    const fired = await shardEntries(redis, stack.errand);
    const worker = await startBenchWorker(redis, concurrency);
    const execute = await metered(redis, runs, async () => {
      // The worker appends each run's step to its shard stream: one entry a run at least.
      await waitForShardEntries(redis, stack.errand, fired + runs);
      await waitUntilSettledInLog(stack.errand, runIds);
    });
    await worker.close({ graceMs: 0 });
    const { events, sampleFields } = await backlogOf(redis, stack.errand);
    const collector = createCollector({
      connection: redis.url,
      durability: redis.durability,
      batchSize: COLLECTOR_BATCH_SIZE,
      // Each batch acknowledged once applied, none held: every shard's pending at 0 then marks
      // the last entry applied, so the phase times the fold, as the rounds before it did.
      ackIntervalMs: 0,
      logger: SILENT_LOGGER,
    });
    try {
      const start = performance.now();
      const fold = await metered(redis, runs, async () => {
        await collector.start();
        await drained(collector);
      });
      const elapsed = performance.now() - start;
      const collect = await metered(redis, runs, () =>
        waitForResults(stack.errand, runIds, TIMEOUT_MS),
      );
      return {
        eventsPerSec: perSecond(events, elapsed),
        cpu: scaled(fold.cpu, runs / events),
        parts: { fire: fire.cpu, worker: execute.cpu, collector: fold.cpu, collect: collect.cpu },
        events,
        shards: stack.errand.store.shards,
        sampleFields,
      };
    } finally {
      await collector.stop();
    }
  } finally {
    await stack.stop();
  }
}
