/**
 * The latency phase times only the runs it was asked for: the runs it
 * offers first, to open the stack's connections and subscribe the client's
 * settled channel of every shard, go through the whole stack but are not timed.
 * Split, the worker and the collector run in a child process, and the
 * profile still finds every stage of every run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BenchRedis, startBenchRedis } from "../bench-redis.js";
import { LATENCY_STAGES } from "../latency-profile.js";
import { measureErrandLatency, WARMUP_RUNS } from "./errand-latency.js";

/** The run logs on the bench's server (`…:run:<runId>`, one per run fired). */
async function runLogs(redis: BenchRedis): Promise<number> {
  let cursor = "0";
  let logs = 0;
  do {
    const [next, keys] = await redis.admin.scan(cursor, "MATCH", "*:run:*", "COUNT", 1000);
    cursor = next;
    logs += keys.filter((key) => /:run:[^:]+$/.test(key)).length;
  } while (cursor !== "0");
  return logs;
}

describe("measureErrandLatency", () => {
  let redis: BenchRedis;
  beforeAll(async () => {
    redis = await startBenchRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("offers its warm-up runs before the clock, and times only the runs asked for", async () => {
    const runs = 7;
    const latency = await measureErrandLatency(redis, runs, 200, 5);
    // At least the warm-up runs, and more until every shard had one.
    expect(latency.warmupRuns).toBeGreaterThanOrEqual(WARMUP_RUNS);
    expect(await runLogs(redis)).toBe(latency.warmupRuns + runs);
    expect(Number.isFinite(latency.p99Ms)).toBe(true);
    // Every timed run's stages were found: the job taken, the announcement the client heard.
    for (const stage of LATENCY_STAGES) {
      expect(Number.isFinite(latency.profile.stagesP99Ms[stage]), stage).toBe(true);
    }
    expect(latency.partsProcess).toBeUndefined();
  });

  it("split, runs the worker and the collector in a child process and still times every stage", async () => {
    const runs = 7;
    const latency = await measureErrandLatency(redis, runs, 200, 5, "split");
    expect(await runLogs(redis)).toBe(latency.warmupRuns + runs);
    // The job taken and the collector's read came from the child, the rest from this process.
    for (const stage of LATENCY_STAGES) {
      expect(Number.isFinite(latency.profile.stagesP99Ms[stage]), stage).toBe(true);
    }
    // No worker ran here: the child's figures are its own.
    expect(latency.partsProcess?.eventLoopDelayP99Ms).toBeGreaterThan(0);
    expect(Number.isFinite(latency.partsProcess?.gcPauseTotalMs)).toBe(true);
  });
});
