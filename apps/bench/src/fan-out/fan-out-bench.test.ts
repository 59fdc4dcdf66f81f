/**
 * `bench --fan-out` on a small tree: the parent spawns in batches, parks,
 * pages through every child and records the counts, and the report has its
 * documented shape, phases in order. No threshold: speed is what the bench
 * reports, never what a test decides.
 */
import { describe, expect, it } from "vitest";
import { FAN_OUT_PAGE_LIMIT, formatFanOutBench, runFanOutBench } from "./fan-out-bench.js";

const CHILDREN = 240;
const BATCH = 80;

describe("runFanOutBench", () => {
  it("fans out to every child, collects each once, and reports the cost of a child", async () => {
    const progress: string[] = [];
    const report = await runFanOutBench({
      children: CHILDREN,
      batch: BATCH,
      onProgress: (line) => progress.push(line),
    });

    expect(report.parent).toEqual({
      spawned: CHILDREN,
      collected: CHILDREN,
      succeeded: CHILDREN,
      pages: Math.ceil(CHILDREN / FAN_OUT_PAGE_LIMIT),
    });
    expect(report.phases.map((phase) => phase.phase)).toEqual(["spawned", "settled", "collected"]);
    for (const phase of report.phases) {
      expect(phase.commandsPerChild.total).toBeGreaterThan(0);
      expect(phase.cpuMs.node).toBeGreaterThanOrEqual(0);
      expect(phase.redisBytesPerChild).toBeGreaterThan(0);
    }
    expect(report.childrenPerSec).toBeGreaterThan(0);
    expect(report.redisBytesPerChild).toBeGreaterThan(0);
    // Each child's own keys are there, by kind: its log, head and result, and its parent's children set.
    for (const kind of ["runLog", "runHead", "result", "children", "idempotency"]) {
      expect(report.redisBytesPerChildByKind[kind]).toBeGreaterThan(0);
    }
    expect(report.redisBytesPerChildByKind).toHaveProperty("unattributed");
    expect(report.peakRssMb.node).toBeGreaterThan(0);
    // The memory sampler saw each phase, and the heap spaces at its highest RSS.
    expect(Object.keys(report.memory.byPhase)).toEqual([
      "spawned",
      "settled",
      "collected",
      "parentSettled",
    ]);
    for (const peaks of Object.values(report.memory.byPhase)) {
      expect(peaks.rss).toBeGreaterThanOrEqual(peaks.heapTotal);
      expect(peaks.heapTotal).toBeGreaterThanOrEqual(peaks.heapUsed);
    }
    expect(report.memory.heapSpacesAtPeak.map((space) => space.space)).toContain("old_space");
    expect(report.collectPagesPerSec).toBeGreaterThan(0);
    expect(progress[0]).toBe(`fanning out to ${CHILDREN} children, ${BATCH} a spawn_agents call`);
    expect(formatFanOutBench(report)).toContain(`collected ${CHILDREN}, succeeded ${CHILDREN}`);
  }, 180_000);
});
