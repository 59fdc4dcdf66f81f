/**
 * How long a queue keeps completed jobs, so queue UIs list them: a run's job
 * carries `DEFAULT_KEEP_COMPLETED_JOBS` unless told, and a client's
 * `jobOptions.removeOnComplete` bounds them instead (here to the last two).
 */
import { waitUntil } from "@errand/testing";
import { describe, expect } from "vitest";
import { createErrand } from "../client/client.js";
import { createLogger } from "../logger.js";
import { engineTest } from "../test-support/engine-test.js";
import { TEST_AGENTS, testAgents } from "../test-support/test-agents.js";
import { createWorker } from "../worker/create-worker.js";
import { DEFAULT_JOB_OPTIONS, DEFAULT_KEEP_COMPLETED_JOBS } from "./run-queues.js";

const it = engineTest("job-retention");

const KEEP = 2;
const RUNS = 4;

describe("completed jobs", () => {
  it("are kept by default for a day and 1,000 a queue, and as jobOptions.removeOnComplete says when given", async ({
    fx,
  }) => {
    const logger = createLogger({ level: "silent" });
    const worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: testAgents({ redis: fx.redis, prefix: fx.prefix }),
      logger,
    });
    const bounded = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      logger,
      jobOptions: { ...DEFAULT_JOB_OPTIONS, removeOnComplete: { count: KEEP } },
    });
    const fireAndSettle = async (client: typeof bounded) => {
      const { runId } = await client.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "done" }] },
      });
      expect((await fx.waitForEvent(runId)).at(-1)?.type).toBe("finished");
      // The job completes just after the run's last append: wait for it, so they complete in order.
      const state = await waitUntil(
        async () => ((await fx.queue.getJobState(runId)) === "completed" ? "completed" : undefined),
        { timeoutMs: 10_000 },
      );
      expect(state).toBe("completed");
      return runId;
    };
    try {
      const kept = await fireAndSettle(fx.errand);
      const job = await fx.queue.getJob(kept);
      expect(job?.opts.removeOnComplete).toEqual(DEFAULT_KEEP_COMPLETED_JOBS);
      expect(DEFAULT_KEEP_COMPLETED_JOBS).toEqual({ age: 86_400, count: 1_000 });

      const runIds: string[] = [];
      for (let n = 0; n < RUNS; n++) runIds.push(await fireAndSettle(bounded));
      const completed = await fx.queue.getCompleted();
      expect(completed.map((completedJob) => completedJob.id).sort()).toEqual(
        runIds.slice(-KEEP).sort(),
      );
    } finally {
      await bounded.close();
      await worker.close();
    }
  });
});
