/**
 * `errand bench --flow`: what flow control costs a run and what fair
 * queueing buys (docs/architecture/flow-control.md#flow-control), on a fresh private
 * Redis. Rounds alternate (off, on, FIFO, fair, …) so both sides see the
 * same machine; BENCHMARKS.md keeps the figures.
 */
import { startBenchRedis } from "../bench-redis.js";
import { loadAverages, type MachineInfo, machineInfo } from "../machine.js";
import { percentile, round } from "../stats.js";
import { type FairnessRound, measureFairness } from "./fairness.js";
import { type FlowOverheadRound, measureFlowOverhead } from "./flow-overhead.js";

/** Rounds of each kind, runs of an overhead round, the two tenants' runs of a fairness round, a worker's slots. */
export interface FlowBenchSizes {
  rounds: number;
  overheadRuns: number;
  bigRuns: number;
  smallRuns: number;
  concurrency: number;
}

const QUICK_FLOW_SIZES: FlowBenchSizes = {
  rounds: 2,
  overheadRuns: 1_000,
  bigRuns: 2_000,
  smallRuns: 10,
  concurrency: 20,
};
const FULL_FLOW_SIZES: FlowBenchSizes = {
  rounds: 3,
  overheadRuns: 2_000,
  bigRuns: 10_000,
  smallRuns: 10,
  concurrency: 20,
};

/** Medians of one side's overhead rounds. */
export interface FlowOverheadSide {
  runsPerSec: number;
  nodeUsPerRun: number;
  redisUsPerRun: number;
}

/** What `errand bench --flow --json` prints. */
export interface FlowBenchReport {
  machine: MachineInfo;
  sizes: FlowBenchSizes;
  loadBefore: number[];
  loadAfter: number[];
  overhead: { off: FlowOverheadSide; on: FlowOverheadSide; rounds: FlowOverheadRound[] };
  fairness: {
    /** Median ms from the small tenant's fire to its first run's start, first in first out. */
    fifoSmallFirstStartMs: number;
    /** The same with fair queueing across concurrency keys. */
    fairSmallFirstStartMs: number;
    rounds: FairnessRound[];
  };
}

/** The middle of `values` (the lower middle of an even count). */
function median(values: readonly number[]): number {
  return percentile(values, 50);
}

function summarize(rounds: readonly FlowOverheadRound[]): FlowOverheadSide {
  return {
    runsPerSec: round(median(rounds.map((r) => r.runsPerSec))),
    nodeUsPerRun: round(median(rounds.map((r) => r.cpu.nodeUs))),
    redisUsPerRun: round(median(rounds.map((r) => r.cpu.redisUs))),
  };
}

/** Measures flow control's cost and fair queueing's effect, alternating the sides round by round. */
export async function runFlowBench(options: {
  quick: boolean;
  onProgress(line: string): void;
  /** Sizes of its own instead of the quick or full ones (tests). */
  sizes?: FlowBenchSizes;
}): Promise<FlowBenchReport> {
  const sizes = options.sizes ?? (options.quick ? QUICK_FLOW_SIZES : FULL_FLOW_SIZES);
  const loadBefore = loadAverages();
  const redis = await startBenchRedis();
  try {
    const overhead: FlowOverheadRound[] = [];
    const fairness: FairnessRound[] = [];
    for (let index = 0; index < sizes.rounds; index++) {
      for (const on of [false, true]) {
        options.onProgress(`overhead round ${index + 1}, flow control ${on ? "on" : "off"}`);
        overhead.push(await measureFlowOverhead(redis, sizes.overheadRuns, sizes.concurrency, on));
      }
      for (const fair of [false, true]) {
        options.onProgress(`fairness round ${index + 1}, fair queueing ${fair ? "on" : "off"}`);
        fairness.push(await measureFairness(redis, sizes, fair));
      }
    }
    const firstStart = (fair: boolean) =>
      median(fairness.filter((r) => r.fairQueueing === fair).map((r) => r.smallFirstStartMs));
    return {
      machine: machineInfo(),
      sizes,
      loadBefore,
      loadAfter: loadAverages(),
      overhead: {
        off: summarize(overhead.filter((r) => !r.flowControl)),
        on: summarize(overhead.filter((r) => r.flowControl)),
        rounds: overhead,
      },
      fairness: {
        fifoSmallFirstStartMs: firstStart(false),
        fairSmallFirstStartMs: firstStart(true),
        rounds: fairness,
      },
    };
  } finally {
    await redis.stop();
  }
}

/** The report as lines for a terminal. */
export function formatFlowBench(report: FlowBenchReport): string {
  const side = (name: string, figures: FlowOverheadSide) =>
    `  ${name}: ${figures.runsPerSec} runs/s, Node ${figures.nodeUsPerRun} µs and Redis ${figures.redisUsPerRun} µs CPU per run`;
  const lines = [
    `machine: ${report.machine.cpus} cores (${report.machine.cpuModel}); load before ${report.loadBefore.join(" ")}, after ${report.loadAfter.join(" ")}`,
    `what flow control costs (${report.sizes.overheadRuns} runs a round, medians of ${report.sizes.rounds} rounds):`,
    side("off", report.overhead.off),
    side("on (two leases, fair queue)", report.overhead.on),
    `fairness (${report.sizes.bigRuns} runs of one tenant, then ${report.sizes.smallRuns} of another): the small tenant's first run started`,
    `  first in, first out: ${report.fairness.fifoSmallFirstStartMs} ms after its fire`,
    `  fair queueing: ${report.fairness.fairSmallFirstStartMs} ms after its fire`,
  ];
  return `${lines.join("\n")}\n`;
}
