/**
 * `bench --cluster` on a tiny workload: the report names, for the queue in
 * three shards and in one, which master holds each shard — one per master,
 * then all on one — and each side's shares add up. No threshold on speed or
 * spread: that is what the bench reports, never what a test decides.
 */
import { describe, expect, it } from "vitest";
import { formatClusterBench, runClusterBench } from "./cluster-bench.js";

describe("runClusterBench", () => {
  it("runs the queue in one shard per master, then in one shard, beside one Redis", async () => {
    const report = await runClusterBench({ runs: 150 });

    const held = (side: typeof report.cluster) => side.perMaster.map((m) => m.queueShards);
    expect(report.cluster.queueShards).toBe(3);
    expect(held(report.cluster)).toEqual([1, 1, 1]);
    expect(report.clusterOneQueueShard.queueShards).toBe(1);
    expect([...held(report.clusterOneQueueShard)].sort()).toEqual([0, 0, 1]);
    for (const side of [report.cluster, report.clusterOneQueueShard]) {
      expect(side.runsPerSec).toBeGreaterThan(0);
      const commandShares = side.perMaster.reduce((sum, m) => sum + m.commandShare, 0);
      expect(commandShares).toBeCloseTo(1, 2);
    }
    // With one shard, the master that holds it runs the most commands: every job's are its.
    const one = report.clusterOneQueueShard.perMaster;
    const holder = one.find((m) => m.queueShards === 1)!;
    expect(Math.max(...one.map((m) => m.commands))).toBe(holder.commands);
    expect(report.single.runsPerSec).toBeGreaterThan(0);
    expect(formatClusterBench(report)).toContain("1 queue shard)");
  }, 300_000);
});
