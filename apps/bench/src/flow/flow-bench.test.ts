/**
 * `bench --flow` on tiny sizes: both sides of each kind ran, alternating, and
 * the report has its documented shape. No threshold: speed is what the bench
 * reports, never what a test decides.
 */
import { describe, expect, it } from "vitest";
import { formatFlowBench, runFlowBench } from "./flow-bench.js";

describe("runFlowBench", () => {
  it("measures flow control off and on, and fairness first in first out and fair", async () => {
    const progress: string[] = [];
    const report = await runFlowBench({
      quick: true,
      onProgress: (line) => progress.push(line),
      sizes: { rounds: 1, overheadRuns: 40, bigRuns: 60, smallRuns: 3, concurrency: 4 },
    });

    expect(report.overhead.rounds.map((r) => r.flowControl)).toEqual([false, true]);
    expect(report.fairness.rounds.map((r) => r.fairQueueing)).toEqual([false, true]);
    for (const side of [report.overhead.off, report.overhead.on]) {
      expect(side.runsPerSec).toBeGreaterThan(0);
      expect(side.nodeUsPerRun).toBeGreaterThan(0);
    }
    for (const round of report.fairness.rounds) {
      expect(round.smallFirstStartMs).toBeGreaterThanOrEqual(0);
      expect(round.smallLastStartMs).toBeGreaterThanOrEqual(round.smallFirstStartMs);
    }
    expect(report.fairness.fairSmallFirstStartMs).toBe(
      report.fairness.rounds[1]!.smallFirstStartMs,
    );
    expect(progress).toEqual([
      "overhead round 1, flow control off",
      "overhead round 1, flow control on",
      "fairness round 1, fair queueing off",
      "fairness round 1, fair queueing on",
    ]);
    expect(formatFlowBench(report)).toContain("fair queueing: ");
  }, 180_000);
});
