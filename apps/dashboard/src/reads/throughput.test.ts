import type { SettledStatus } from "@errand/core";
import { describe, expect, it } from "vitest";
import type { SettledRun } from "./settled-runs.js";
import { throughputOf } from "./throughput.js";

const NOW = Date.parse("2026-01-01T12:10:30.000Z");

function run(status: SettledStatus, settledAt: string): SettledRun {
  const settledAtMs = Date.parse(settledAt);
  return { runId: settledAt, agent: "a", status, createdAtMs: settledAtMs - 1_000, settledAtMs };
}

describe("throughputOf", () => {
  it("counts runs per minute of the window, oldest minute first, the current one last", () => {
    const runs = [
      run("succeeded", "2026-01-01T12:10:05.000Z"),
      run("failed", "2026-01-01T12:10:29.000Z"),
      run("succeeded", "2026-01-01T12:08:59.999Z"),
      run("cancelled", "2026-01-01T11:56:00.000Z"),
      run("succeeded", "2026-01-01T11:55:59.000Z"), // before the window
      run("succeeded", "2026-01-01T12:10:31.000Z"), // after now
    ];
    const throughput = throughputOf(runs, NOW, 15);
    expect(throughput.minutes).toHaveLength(15);
    expect(throughput.minutes[0]).toEqual({
      minute: "2026-01-01T11:56:00.000Z",
      succeeded: 0,
      failed: 0,
      cancelled: 1,
    });
    expect(throughput.minutes.at(-1)).toEqual({
      minute: "2026-01-01T12:10:00.000Z",
      succeeded: 1,
      failed: 1,
      cancelled: 0,
    });
    expect(throughput.minutes.at(-3)?.succeeded).toBe(1);
    expect(throughput.settled).toBe(4);
    expect(throughput.failed).toBe(1);
    expect(throughput.settledPerMinute).toBeCloseTo(4 / 15);
    expect(throughput.failureRate).toBeCloseTo(0.25);
  });

  it("has no failure rate when nothing settled", () => {
    const throughput = throughputOf([], NOW, 5);
    expect(throughput.settled).toBe(0);
    expect(throughput.failureRate).toBeNull();
    expect(throughput.minutes.every((minute) => minute.succeeded === 0)).toBe(true);
  });
});
