/**
 * `bench --scaling` on tiny sizes: real worker processes settle every run
 * (the bench's own process runs no worker, so a point only ends when the
 * children ran its runs), on one Redis and on a 3-master cluster, and the
 * report has its documented shape. No threshold: speed is what the bench
 * reports, never what a test decides.
 */
import { describe, expect, it } from "vitest";
import { formatScalingBench, runScalingBench } from "./scaling-bench.js";

describe("runScalingBench", () => {
  it("settles the runs with worker processes on one Redis and on a cluster", async () => {
    const report = await runScalingBench({ runs: 100, workerCounts: [1, 2] });

    for (const side of [report.single, report.cluster]) {
      expect(side.points.map((point) => point.workerProcesses)).toEqual([1, 2]);
      for (const { runsPerSec, busyCores } of side.points) {
        expect(runsPerSec).toBeGreaterThan(0);
        // The children spent CPU on the runs: the bench's process runs no worker.
        expect(busyCores.workers).toBeGreaterThan(0);
        expect(busyCores.total).toBeCloseTo(
          busyCores.workers + busyCores.bench + busyCores.redis,
          1,
        );
      }
      expect(Number.isFinite(side.mostOverOne)).toBe(true);
    }
    expect(report.single).toMatchObject({ masters: 1, queueShards: 1 });
    expect(report.cluster).toMatchObject({ masters: 3, queueShards: 3 });
    expect(report.workload.runs).toBe(100);
    expect(formatScalingBench(report)).toContain("2 worker processes");
  }, 300_000);
});
