/**
 * The latency phase times only the runs it was asked for: the runs it
 * offers first, to open the stack's connections and subscribe the client's
 * settled channels, go through the whole stack but are not timed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BenchRedis, startBenchRedis } from "../bench-redis.js";
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
    expect(await runLogs(redis)).toBe(WARMUP_RUNS + runs);
    expect(Number.isFinite(latency.p99Ms)).toBe(true);
    // Every timed run's stages were found, the job taken among them.
    expect(Number.isFinite(latency.profile.stagesP99Ms.take)).toBe(true);
    expect(Number.isFinite(latency.profile.stagesP99Ms.start)).toBe(true);
  });
});
