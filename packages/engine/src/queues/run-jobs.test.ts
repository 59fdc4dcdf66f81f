/**
 * Whether a queue holds a run's job, against real Redis and a real BullMQ
 * queue: one `EXISTS` of the job's hash, the same with 4,000 jobs waiting as
 * with 1,000 — never BullMQ's `getJobState`, whose look in the waiting list
 * (`LPOS`) grows with the jobs waiting, which made the reaper's look at each
 * of a fan-out's queued children cost more the more of them waited.
 */
import { describe, expect } from "vitest";
import { engineTest } from "../test-support/engine-test.js";
import { hasRunJob } from "./run-jobs.js";

const it = engineTest("run-jobs");

describe("hasRunJob", () => {
  it("answers with one EXISTS whatever the number of jobs waiting", async ({ fx }) => {
    /** The calls of `names` the server served while `look` ran (`INFO commandstats`). */
    const callsDuring = async (names: readonly string[], look: () => Promise<boolean>) => {
      const calls = async () => {
        const info = await fx.redis.info("commandstats");
        return names.map((name) =>
          Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0),
        );
      };
      const before = await calls();
      const answer = await look();
      const after = await calls();
      return { answer, calls: after.map((count, index) => count - before[index]!) };
    };
    const addWaiting = (from: number, count: number) =>
      fx.queue.addBulk(
        Array.from({ length: count }, (_, index) => ({
          name: "run",
          data: {},
          opts: { jobId: `job-${from + index}` },
        })),
      );
    await addWaiting(0, 1_000);
    // The oldest job waits at the far end of the list: a look by LPOS would walk all of it.
    const few = await callsDuring(["exists", "lpos"], () => hasRunJob(fx.redis, fx.queue, "job-0"));
    await addWaiting(1_000, 3_000);
    const many = await callsDuring(["exists", "lpos"], () =>
      hasRunJob(fx.redis, fx.queue, "job-0"),
    );
    const none = await callsDuring(["exists", "lpos"], () =>
      hasRunJob(fx.redis, fx.queue, "no-such-job"),
    );
    expect(await fx.queue.getWaitingCount()).toBe(4_000);
    expect(few).toEqual({ answer: true, calls: [1, 0] });
    expect(many).toEqual({ answer: true, calls: [1, 0] });
    expect(none).toEqual({ answer: false, calls: [1, 0] });
  });
});
