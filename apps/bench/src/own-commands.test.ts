/**
 * errand's own Redis commands per one-step run, pinned: the bench's
 * end-to-end phase (fire, worker, collector, `collect` waiting) and its
 * BullMQ baseline (a job with errand's job options) on one private Redis,
 * counted with `INFO commandstats` (commands inside scripts included), and
 * errand's share — the run's commands less BullMQ's job's — held under the
 * bound BENCHMARKS.md states. A command added to a run's path fails it. The
 * counts are exact but for how the collector's batches fall (a read and a
 * script call a batch, a PUBLISH a batch that settles runs, an XACK for a
 * few batches), hence the bound's margin.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BenchRedis, startBenchRedis } from "./bench-redis.js";
import { measureBullmq } from "./phases/bullmq-baseline.js";
import { measureErrandThroughput } from "./phases/errand-throughput.js";

/** Runs (and BullMQ jobs) counted: below the 1,000 completed jobs BullMQ keeps, so neither side trims. */
const RUNS = 600;
const CONCURRENCY = 50;

/**
 * errand's own commands per run may not exceed this: 16.3–16.4 measured
 * with a few batches acknowledged in one XACK (BENCHMARKS.md, "Seventh
 * round: errand's own commands a run"; 17.1–17.7, 18.4–18.9, 19.7–20.0,
 * 26.3, then 31.3, before it), so one command more a run fails.
 */
const OWN_COMMANDS_BOUND = 18;

let redis: BenchRedis;

beforeAll(async () => {
  redis = await startBenchRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe("errand's own Redis commands per one-step run", () => {
  it("stay within the bound: no shard entry at a quiet opening, no PEXPIRETIME, settled runs moved a batch at a time, no log read at a job's start, no result read after its announcement, no head read by the collector or a waiting first read, one PUBLISH a batch, one XACK for a few batches, one log entry an append, no expiry of keys a run lacks", async () => {
    const bullmq = await measureBullmq(redis, RUNS, CONCURRENCY);
    const errand = await measureErrandThroughput(redis, RUNS, CONCURRENCY);
    const own = errand.commandsPerRun - bullmq.commands.total;
    const byName = errand.commandsPerRunByName;
    const context = `own ${own.toFixed(2)}; errand ${JSON.stringify(byName)}; BullMQ ${JSON.stringify(bullmq.commands.byName)}`;
    expect(own, context).toBeLessThanOrEqual(OWN_COMMANDS_BOUND);
    const ownOf = (name: string) => (byName[name] ?? 0) - (bullmq.commands.byName[name] ?? 0);
    // One announcement per collector batch, not one per run; one XACK for a few batches.
    expect(ownOf("publish"), context).toBeLessThan(0.9);
    expect(ownOf("xack"), context).toBeLessThan(ownOf("xreadgroup"));
    // The settling append's expiry rides in its shard entry; a waiting first read looks at a
    // shard's heads in one EXISTS, not at each run's.
    expect(ownOf("pexpiretime"), context).toBe(0);
    expect(ownOf("exists"), context).toBeLessThan(0.1);
    // Two index writes a run when queued (active and the agent's), and the status move when settled
    // a batch at a time (one ZADD and one ZREM a collector call): no index of every run.
    expect(ownOf("zadd"), context).toBeGreaterThan(2);
    expect(ownOf("zadd"), context).toBeLessThan(2.9);
    expect(ownOf("zrem"), context).toBeLessThan(0.9);
    // The settling append expires the log and the head: no blobs or children set a run without them.
    expect(ownOf("pexpireat"), context).toBe(2);
    // Two XADDs a run to its log (fire's, the step's) and one to its shard stream (the step's:
    // fire's opening, with neither a budget nor a deadline, is quiet).
    expect(ownOf("xadd"), context).toBeCloseTo(3, 6);
    // One head read a run, the step's append's: fire reads none.
    expect(ownOf("hmget"), context).toBeCloseTo(1, 6);
    // A job's first delivery is decided from the run-queued it carries: no log read.
    expect(ownOf("xrange"), context).toBe(0);
    // A settled run's result rides in its announcement: the waiting collect reads none.
    expect(ownOf("get"), context).toBeLessThan(0.1);
    // Neither the collector (the settling append moved the run, and its entry's expiry says the
    // head is there) nor the waiting collect's first read (one MGET and one EXISTS a shard) reads a head's status.
    expect(ownOf("hget"), context).toBeLessThan(0.1);
  });
});
