/**
 * `bench --fan-out N --cluster` on a small tree: the parent collects every
 * child on a 3-master cluster, every master holds a share of the children,
 * of the Redis memory and of the commands, and the masters' counts add up to
 * the tree (N children, N + 1 run logs with the parent's). No threshold on
 * speed or evenness: that is what the bench reports, never what a test decides.
 */
import { describe, expect, it } from "vitest";
import { FAN_OUT_PAGE_LIMIT } from "./fan-out-bench.js";
import { formatFanOutClusterBench, runFanOutClusterBench } from "./fan-out-cluster-bench.js";

const CHILDREN = 200;
const BATCH = 100;

describe("runFanOutClusterBench", () => {
  it("fans out over every master of a cluster and collects every child", async () => {
    const report = await runFanOutClusterBench({
      children: CHILDREN,
      batch: BATCH,
      onProgress: () => {},
    });

    expect(report.parent).toEqual({
      spawned: CHILDREN,
      collected: CHILDREN,
      succeeded: CHILDREN,
      pages: Math.ceil(CHILDREN / FAN_OUT_PAGE_LIMIT),
    });
    expect(report.phases.map((phase) => phase.phase)).toEqual(["spawned", "settled", "collected"]);
    expect(report).toMatchObject({ masters: 3, shards: 48, queueShards: 3 });
    expect(report.perMaster).toHaveLength(3);
    for (const master of report.perMaster) {
      expect(master.children).toBeGreaterThan(0);
      expect(master.runLogs).toBeGreaterThan(0);
      expect(master.memoryBytes).toBeGreaterThan(0);
      expect(master.commands).toBeGreaterThan(0);
      expect(master.queueShards).toBe(1);
    }
    const sum = (pick: (m: (typeof report.perMaster)[number]) => number) =>
      report.perMaster.reduce((total, m) => total + pick(m), 0);
    expect(sum((m) => m.runShards)).toBe(48);
    expect(sum((m) => m.children)).toBe(CHILDREN);
    expect(sum((m) => m.runLogs)).toBe(CHILDREN + 1);
    const parentMasters = report.perMaster.filter((m) => m.holdsParent);
    expect(parentMasters).toHaveLength(1);
    expect(parentMasters[0]!.runLogs).toBe(parentMasters[0]!.children + 1);
    expect(report.totals).toEqual({
      children: CHILDREN,
      succeeded: CHILDREN + 1,
      runLogs: CHILDREN + 1,
    });
    expect(report.countsAddUp).toBe(true);
    expect(sum((m) => m.childShare)).toBeCloseTo(1, 2);
    expect(sum((m) => m.commandShare)).toBeCloseTo(1, 2);
    expect(report.redisBytesPerChild).toBeGreaterThan(0);
    expect(formatFanOutClusterBench(report)).toContain(
      `over the masters: ${CHILDREN} children, ${CHILDREN + 1} runs succeeded`,
    );
  }, 120_000);
});
