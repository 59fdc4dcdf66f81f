/**
 * errand end to end: a worker and a collector running, N one-step runs fired
 * with `fireMany`, the clock stopped when every `RunResult` is readable
 * (`collect`). Around it, the cost: `INFO commandstats` calls and
 * `used_memory` before and after (the shard streams' part apart: their
 * entries are trimmed behind the collectors within `trimIntervalMs`, so they
 * are not what a settled run keeps), the same growth by kind of key
 * (`MEMORY USAGE` of every key: logs, heads, results, indexes, BullMQ's
 * share), this process's RSS at the end, and the bytes its heap allocated.
 */
import type { BenchRedis } from "../bench-redis.js";
import { commandCalls, commandsPerUnit, keysMemoryUsage, usedMemory } from "../bench-redis.js";
import { type CpuPerUnit, cpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import { fireBenchRuns, startErrandStack, waitForResults } from "../errand-stack.js";
import { startHeapMeter } from "../heap-meter.js";
import { bytesByKeyKind, bytesPerRunByKind } from "../key-kinds.js";
import { perSecond } from "../stats.js";

/** What the end-to-end phase measured. */
export interface ErrandThroughput {
  /** Runs fired and settled (result readable) per second. */
  runsPerSec: number;
  /** Redis commands (`INFO commandstats` calls, script-internal ones included) per run. */
  commandsPerRun: number;
  /** The same, by command name (`evalsha`, `xadd`, …), most called first. */
  commandsPerRunByName: Record<string, number>;
  /** Growth of `used_memory` per settled run, in bytes, the shard streams' growth left out. */
  bytesPerRun: number;
  /** Growth of the shard streams (`MEMORY USAGE`) per run: entries not yet trimmed behind the collectors. */
  shardStreamBytesPerRun: number;
  /**
   * The growth of `used_memory` per run by kind of key (`runLog`, `runHead`,
   * `result`, `runIndexes`, `bullmqJobs`, …: `MEMORY USAGE` of every key),
   * with `unattributed` the part no key's `MEMORY USAGE` counts.
   */
  bytesPerRunByKind: Record<string, number>;
  /** This process's resident set (client, worker and collector) after the phase, in MB. */
  rssMb: number;
  /** CPU per run. */
  cpu: CpuPerUnit;
  /** The bytes this process's JavaScript heap allocated per run, in KB (1,024 bytes). */
  heapKbPerRun: number;
}

/** The longest the phase waits for its runs. */
const SETTLE_TIMEOUT_MS = 600_000;

/** Runs `runs` bench runs end to end with a worker at `concurrency`. */
export async function measureErrandThroughput(
  redis: BenchRedis,
  runs: number,
  concurrency: number,
): Promise<ErrandThroughput> {
  await redis.flush();
  const stack = await startErrandStack({ redis, concurrency });
  const { store } = stack.errand;
  const shardStreams = Array.from({ length: store.shards }, (_, shard) =>
    store.keys.shardEvents(shard),
  );
  try {
    const kindsBefore = await bytesByKeyKind(redis.admin);
    const streamsBefore = await keysMemoryUsage(redis.admin, shardStreams);
    const callsBefore = await commandCalls(redis.admin);
    const memoryBefore = await usedMemory(redis.admin);
    const meter = await startCpuMeter(redis.admin);
    const heap = startHeapMeter();
    const start = performance.now();
    const runIds = await fireBenchRuns(stack, runs);
    await waitForResults(stack.errand, runIds, SETTLE_TIMEOUT_MS);
    const elapsed = performance.now() - start;
    const heapAllocated = heap.stop();
    const spent = await meter.read();
    const commands = commandsPerUnit(callsBefore, await commandCalls(redis.admin), runs);
    const memoryAfter = await usedMemory(redis.admin);
    const streamsGrowth = (await keysMemoryUsage(redis.admin, shardStreams)) - streamsBefore;
    const kindsAfter = await bytesByKeyKind(redis.admin);
    return {
      runsPerSec: perSecond(runs, elapsed),
      commandsPerRun: commands.total,
      commandsPerRunByName: commands.byName,
      bytesPerRun: (memoryAfter - memoryBefore - streamsGrowth) / runs,
      shardStreamBytesPerRun: streamsGrowth / runs,
      bytesPerRunByKind: bytesPerRunByKind(
        kindsBefore,
        kindsAfter,
        memoryAfter - memoryBefore,
        runs,
      ),
      rssMb: process.memoryUsage().rss / 1024 ** 2,
      cpu: cpuPerUnit(spent, runs),
      heapKbPerRun: heapAllocated / 1024 / runs,
    };
  } finally {
    await stack.stop();
  }
}
