/**
 * The fan-out parent alone on a small tree: it spawns, pages through every
 * child and records its counts; the report samples the live heap every
 * 1,000 steps. No threshold: memory is what the bench reports.
 */
import { describe, expect, it } from "vitest";
import { runParentMemoryBench } from "./parent-memory.js";

describe("runParentMemoryBench", () => {
  it("runs the parent over every child and samples its heap", async () => {
    const report = await runParentMemoryBench(120_000);
    // 120 spawn steps, 1,200 pages (the first answers the wait), the record.
    expect(report.steps).toBe(120 + 1_200 + 1);
    expect(report.samples.map((sample) => sample.step)).toEqual([1_000]);
    expect(report.samples[0]!.liveHeapMb).toBeGreaterThan(0);
    expect(report.peakRssMb).toBeGreaterThan(0);
  }, 180_000);
});
