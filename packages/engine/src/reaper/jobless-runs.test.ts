/**
 * The reaper's look at runs left queued without a job, a batch of runs at a
 * time: across batches it enqueues exactly the runs still queued with no
 * job, leaves a run that settled without its job alone, and looks at each
 * run once.
 */
import { describe, expect } from "vitest";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { createReaper } from "./create-reaper.js";

const it = engineTest("jobless-runs");

const AGENT = "jobless";
const RUNS = 7;

it.beforeAll(async ({ fx }) => {
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: AGENT }], { queue: fx.queue.name });
});

describe("runs left queued without a job", () => {
  it("get their job, a batch of runs at a time, each run looked at once", async ({ fx }) => {
    const fired = await fx.errand.fireMany(
      Array.from({ length: RUNS }, (_, n) => ({ agent: AGENT, input: { n } })),
    );
    const runIds = fired.results.map((result) => result.runId!);
    // Their producer died before enqueueing the jobs of the 2nd, 4th and 7th;
    // the 4th was cancelled since (settled, with no job to remove).
    const jobless = [runIds[1]!, runIds[3]!, runIds[6]!];
    await Promise.all(jobless.map((runId) => fx.queue.remove(runId)));
    expect((await fx.errand.cancel(runIds[3]!)).requested).toBe(true);
    expect((await fx.errand.store.readHead(runIds[3]!))?.status).toBe("cancelled");

    const reaper = createReaper({
      connection: fx.server.url,
      prefix: fx.prefix,
      batchSize: 2,
      joblessAfterMs: 0,
    });
    try {
      expect((await reaper.reapOnce()).joblessEnqueued).toBe(2);
      const jobs = await Promise.all(runIds.map((runId) => fx.queue.getJob(runId)));
      expect(jobs.map((job) => job !== undefined)).toEqual([
        true,
        true,
        true,
        false,
        true,
        true,
        true,
      ]);
      // Each run is looked at once: a job removed after the look is not added again.
      await fx.queue.remove(runIds[1]!);
      expect((await reaper.reapOnce()).joblessEnqueued).toBe(0);
      expect(await fx.queue.getJob(runIds[1]!)).toBeUndefined();
    } finally {
      await reaper.stop();
    }
  });
});
