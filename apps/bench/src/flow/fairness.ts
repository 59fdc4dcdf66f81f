/**
 * Fairness across concurrency keys: a big tenant fires `bigRuns` runs, then
 * a small tenant fires `smallRuns`; time to first start is how long after the
 * small tenant's fire its first run started (its `run-started`), with fair
 * queueing and without it (first in, first out), on one worker.
 */
import type { Errand } from "@errand/engine";
import type { BenchRedis } from "../bench-redis.js";
import { fireBenchRuns, startErrandStack, waitForResults } from "../errand-stack.js";

/** The longest a fairness round waits for its runs. */
const SETTLE_TIMEOUT_MS = 900_000;

/** What one fairness round measured. */
export interface FairnessRound {
  fairQueueing: boolean;
  /** From the small tenant's fire to its first run's `run-started`, ms. */
  smallFirstStartMs: number;
  /** From the small tenant's fire to its last run's `run-started`, ms. */
  smallLastStartMs: number;
  /** Runs of the big tenant still waiting when the small tenant fired. */
  bigWaitingAtFire: number;
}

/** When each run of `runIds` started (its first `run-started`), ms since the epoch. */
async function startTimes(errand: Errand, runIds: readonly string[]): Promise<number[]> {
  return Promise.all(
    runIds.map(async (runId) => {
      for await (const event of errand.events(runId)) {
        if (event.type === "run-started") return Date.parse(event.at);
      }
      throw new Error(`bench run ${runId} never started`);
    }),
  );
}

/** One round: the big tenant's runs, then the small tenant's, on a worker at `concurrency`. */
export async function measureFairness(
  redis: BenchRedis,
  sizes: { bigRuns: number; smallRuns: number; concurrency: number },
  fairQueueing: boolean,
): Promise<FairnessRound> {
  await redis.flush();
  const stack = await startErrandStack({ redis, concurrency: sizes.concurrency, fairQueueing });
  try {
    const big = await fireBenchRuns(stack, sizes.bigRuns, 0, () => "tenant-big");
    const firedAt = Date.now();
    const small = await fireBenchRuns(stack, sizes.smallRuns, sizes.bigRuns, () => "tenant-small");
    await waitForResults(stack.errand, [...big, ...small], SETTLE_TIMEOUT_MS);
    const starts = await startTimes(stack.errand, small);
    const bigStarts = await startTimes(stack.errand, big);
    return {
      fairQueueing,
      smallFirstStartMs: Math.min(...starts) - firedAt,
      smallLastStartMs: Math.max(...starts) - firedAt,
      bigWaitingAtFire: bigStarts.filter((startedAt) => startedAt >= firedAt).length,
    };
  } finally {
    await stack.stop();
  }
}
