/**
 * `pnpm --filter @errand/bench bench:flow [--quick]`: what flow control costs
 * and what fair queueing buys (docs/architecture.md §7, Flow control), on a
 * fresh private Redis, printed as JSON. Rounds alternate (off, on, off, on, …)
 * so both see the same machine; BENCHMARKS.md keeps the figures.
 */
import { startBenchRedis } from "../bench-redis.js";
import { loadAverages, machineInfo } from "../machine.js";
import { round } from "../stats.js";
import { type FairnessRound, measureFairness } from "./fairness.js";
import { type FlowOverheadRound, measureFlowOverhead } from "./flow-overhead.js";

const quick = process.argv.includes("--quick");
/** Sizes: rounds of each kind, runs of an overhead round, and the tenants of a fairness round. */
const SIZES = quick
  ? { rounds: 2, overheadRuns: 1_000, bigRuns: 2_000, smallRuns: 10, concurrency: 20 }
  : { rounds: 3, overheadRuns: 2_000, bigRuns: 10_000, smallRuns: 10, concurrency: 20 };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function summarize(rounds: readonly FlowOverheadRound[]) {
  return {
    runsPerSec: round(median(rounds.map((r) => r.runsPerSec))),
    nodeUsPerRun: round(median(rounds.map((r) => r.cpu.nodeUs))),
    redisUsPerRun: round(median(rounds.map((r) => r.cpu.redisUs))),
  };
}

const progress = (line: string) => process.stderr.write(`bench:flow: ${line}\n`);
const loadBefore = loadAverages();
const redis = await startBenchRedis();
try {
  const overhead: FlowOverheadRound[] = [];
  const fairness: FairnessRound[] = [];
  for (let index = 0; index < SIZES.rounds; index++) {
    for (const on of [false, true]) {
      progress(`overhead round ${index + 1}, flow control ${on ? "on" : "off"}`);
      overhead.push(await measureFlowOverhead(redis, SIZES.overheadRuns, SIZES.concurrency, on));
    }
    for (const fair of [false, true]) {
      progress(`fairness round ${index + 1}, fair queueing ${fair ? "on" : "off"}`);
      fairness.push(await measureFairness(redis, SIZES, fair));
    }
  }
  const result = {
    machine: machineInfo(),
    sizes: SIZES,
    loadBefore,
    loadAfter: loadAverages(),
    overhead: {
      off: summarize(overhead.filter((r) => !r.flowControl)),
      on: summarize(overhead.filter((r) => r.flowControl)),
      rounds: overhead,
    },
    fairness: {
      fifoSmallFirstStartMs: median(
        fairness.filter((r) => !r.fairQueueing).map((r) => r.smallFirstStartMs),
      ),
      fairSmallFirstStartMs: median(
        fairness.filter((r) => r.fairQueueing).map((r) => r.smallFirstStartMs),
      ),
      rounds: fairness,
    },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await redis.stop();
}
