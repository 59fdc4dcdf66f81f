/**
 * The worker's life: it registers its agents and beats while it lives; it
 * fails a job with malformed data without crashing; it runs an agent that
 * names its model on the server of `OPENAI_BASE_URL` alone; on SIGTERM it lets its
 * active run finish and exits, or, past the grace period, leaves the run to
 * its lock, and another worker resumes it from its log. It tells each job it
 * takes on the job-taken diagnostics channel. A fired run's job carries its
 * `run-queued` (a small one); a job without it, as older producers (and
 * producers in the first step of the upgrade) enqueue, runs from the log.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { foldRun, settleRun } from "@errand/core";
import { defineAgent, PLACEHOLDER_API_KEY } from "@errand/runtime";
import { startFakeOpenAI } from "@errand/testing";
import { describe, expect, vi } from "vitest";
import { createErrand } from "../client/client.js";
import { eventually } from "../collector/test-support/conditions.js";
import { MAX_CARRIED_QUEUED_BYTES } from "../queues/job-data.js";
import { readAgentRegistrations, readQueueRegistrations } from "../queues/registry.js";
import { type EngineFixture, FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { captureLogs, type LogCapture } from "../test-support/log-capture.js";
import { TEST_AGENTS, testAgents } from "../test-support/test-agents.js";
import { createWorker, type WorkerOptions } from "./create-worker.js";
import { readWorkerHeartbeats } from "./heartbeat.js";
import { WORKER_JOB_TAKEN_CHANNEL, type WorkerJobTaken } from "./taken-jobs.js";

const it = engineTest("worker-life");

it.afterEach(async ({ fx }) => {
  vi.unstubAllEnvs();
  await fx.killWorkers();
});

/**
 * An in-process worker on the test agents. Its stalled-job check is as fast
 * as the worker processes': BullMQ spaces the checks of all workers of a
 * queue by the interval of the last one that checked.
 */
function inProcessWorker(
  fx: EngineFixture,
  logs: LogCapture,
  options: Partial<WorkerOptions> = {},
) {
  return createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: testAgents({ redis: fx.redis, prefix: fx.prefix }),
    logger: logs.logger,
    lockDuration: FAST_TAKEOVER.lockDurationMs,
    stalledInterval: FAST_TAKEOVER.stalledIntervalMs,
    ...options,
  });
}

function fireSlow(fx: EngineFixture, sleepMs: number) {
  return fx.errand.fire({
    agent: TEST_AGENTS.plain,
    input: { script: [{ sleepMs, say: "slow but done" }] },
  });
}

describe("createWorker", () => {
  it("registers its queue and agents, beats while it lives and leaves its registrations when closed", async ({
    fx,
  }) => {
    const logs = captureLogs();
    const worker = await inProcessWorker(fx, logs, { workerId: "in-process", concurrency: 3 });
    const keys = fx.errand.keys;
    expect(worker.queue).toBe(`${fx.prefix}.plain,structured,text-only`);
    expect(worker.queue).toBe(fx.queue.name);
    expect(await readWorkerHeartbeats(fx.redis, keys)).toEqual([
      expect.objectContaining({
        workerId: "in-process",
        agents: ["plain", "structured", "text-only"],
        queues: [worker.queue],
        concurrency: 3,
        queueShards: [0],
        pid: process.pid,
      }),
    ]);
    expect(await readQueueRegistrations(fx.redis, keys)).toEqual([
      expect.objectContaining({
        queue: worker.queue,
        agents: ["plain", "structured", "text-only"],
      }),
    ]);
    expect(await readAgentRegistrations(fx.redis, keys, "structured")).toEqual([
      expect.objectContaining({
        queue: worker.queue,
        supportsSchema: true,
        scriptFromInput: true,
        maxSteps: 8,
        outputSchema: expect.objectContaining({ type: "object", required: ["answer"] }),
      }),
    ]);
    expect(await readAgentRegistrations(fx.redis, keys, "text-only")).toEqual([
      expect.objectContaining({ supportsSchema: false }),
    ]);

    await worker.close();
    expect(await readWorkerHeartbeats(fx.redis, keys)).toEqual([]);
    expect(await readAgentRegistrations(fx.redis, keys, "plain")).toHaveLength(1);
  });

  it("fails a job with malformed data, once and clearly, and goes on working", async ({ fx }) => {
    const logs = captureLogs();
    const worker = await inProcessWorker(fx, logs);
    try {
      await fx.queue.add("plain", { bogus: true }, { jobId: "bad-job", attempts: 3 });
      const failed = await logs.waitFor((line) => line.msg === "job failed");
      expect(failed.error).toContain("job bad-job carries malformed data");
      const job = await fx.queue.getJob("bad-job");
      expect(job?.attemptsMade).toBe(1);
      expect(await job?.getState()).toBe("failed");

      const { runId } = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "still working" }] },
      });
      const events = await fx.waitForEvent(runId);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded" });
    } finally {
      await worker.close();
    }
  });

  it("tells each job it takes on the job-taken diagnostics channel, once", async ({ fx }) => {
    const taken: WorkerJobTaken[] = [];
    const onTaken = (message: unknown) => taken.push(message as WorkerJobTaken);
    const worker = await inProcessWorker(fx, captureLogs());
    subscribe(WORKER_JOB_TAKEN_CHANNEL, onTaken);
    try {
      const firedAt = performance.timeOrigin + performance.now();
      const { runId } = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "taken" }] },
      });
      await fx.waitForEvent(runId);
      const settledSeenAt = performance.timeOrigin + performance.now();
      expect(taken.map((message) => message.runId)).toEqual([runId]);
      expect(taken[0]?.takenAt).toBeGreaterThanOrEqual(firedAt);
      expect(taken[0]?.takenAt).toBeLessThanOrEqual(settledSeenAt);
    } finally {
      unsubscribe(WORKER_JOB_TAKEN_CHANNEL, onTaken);
      await worker.close();
    }
  });

  it("counts its runs in its metrics, and keeps none with prometheus: false", async ({ fx }) => {
    const plainRun = async () => {
      const { runId } = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "counted" }] },
      });
      return settleRun(foldRun(await fx.waitForEvent(runId)));
    };
    const unmetered = await inProcessWorker(fx, captureLogs(), { prometheus: false });
    try {
      expect(unmetered.prometheus).toBeUndefined();
      expect(await plainRun()).toMatchObject({ status: "succeeded" });
    } finally {
      await unmetered.close();
    }
    const metered = await inProcessWorker(fx, captureLogs());
    try {
      expect(await plainRun()).toMatchObject({ status: "succeeded" });
      // The worker counts a run once its last append returns, just after the log shows it.
      const settledLine = 'errand_runs_settled_total{agent="plain",status="succeeded"} 1';
      await eventually("the run counted in the metrics", async () =>
        (await metered.prometheus?.text())?.includes(settledLine) ? true : undefined,
      );
    } finally {
      await metered.close();
    }
  });

  it("keeps inputs, outputs and tool arguments out of its logs", async ({ fx }) => {
    const logs = captureLogs();
    const worker = await inProcessWorker(fx, logs);
    try {
      const secret = "SECRET-PASSPHRASE-8841";
      const { runId } = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { secret, script: [{ call: [{ tool: "bump", args: {} }] }, { say: secret }] },
      });
      await fx.waitForEvent(runId);
      await logs.waitFor((line) => line.msg === "run settled" && line.runId === runId);
      const runLines = logs.lines.filter((line) => line.runId === runId);
      expect(runLines.map((line) => line.msg)).toEqual(
        expect.arrayContaining(["run started", "run settled"]),
      );
      expect(runLines.find((line) => line.msg === "run started")).toMatchObject({
        agent: "plain",
        attempt: 1,
      });
      expect(logs.text()).not.toContain(secret);
    } finally {
      await worker.close();
    }
  });

  it("runs an agent that names its model on OPENAI_BASE_URL alone, a blank API key counting as none", async ({
    fx,
  }) => {
    const fake = await startFakeOpenAI({ scripts: { "local-model": [{ say: "hello, locally" }] } });
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    vi.stubEnv("OPENAI_API_KEY", "");
    const local = defineAgent({ name: "local", instructions: "Say hello.", model: "local-model" });
    const worker = await inProcessWorker(fx, captureLogs(), { agents: [local] });
    try {
      const { runId } = await fx.errand.fire({ agent: "local", input: "hello?" });
      const events = await fx.waitForEvent(runId);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded" });
      expect(events.at(-1)).toMatchObject({ type: "finished", data: { text: "hello, locally" } });
      expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
    } finally {
      await worker.close();
      await fake.close();
    }
  });
});

describe("a crashed worker", () => {
  it("leaves no heartbeat once a few beats pass, while a live worker keeps its own", async ({
    fx,
  }) => {
    const beat = { heartbeatMs: 200 };
    const crashed = await fx.spawn("crashed", beat);
    await fx.spawn("alive", beat);
    const ids = async () =>
      (await readWorkerHeartbeats(fx.redis, fx.errand.keys)).map((h) => h.workerId).sort();
    expect(await ids()).toEqual(["alive", "crashed"]);

    crashed.signal("SIGKILL");
    expect(await crashed.exited).toEqual({ code: null, signal: "SIGKILL" });
    await eventually("the crashed worker's heartbeat to expire", async () =>
      (await fx.redis.exists(fx.errand.keys.worker("crashed"))) === 0 ? true : undefined,
    );
    expect(await ids()).toEqual(["alive"]);
    expect(await fx.redis.smembers(fx.errand.keys.workers)).toEqual(["alive"]);
  });
});

describe("SIGTERM", () => {
  it("lets the active run finish, removes the heartbeat and exits cleanly", async ({ fx }) => {
    const worker = await fx.spawn("graceful", FAST_TAKEOVER);
    const { runId } = await fireSlow(fx, 1_000);
    await worker.waitForLine(
      (line) => line.msg === "model request" && line.runId === runId,
      "the slow model request",
    );

    worker.signal("SIGTERM");
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    const events = await fx.errand.store.readLog(runId);
    expect(settleRun(foldRun(events))).toMatchObject({
      status: "succeeded",
      text: "slow but done",
      attempts: 1,
    });
    const heartbeats = await readWorkerHeartbeats(fx.redis, fx.errand.keys);
    expect(heartbeats.map((heartbeat) => heartbeat.workerId)).not.toContain("graceful");
  });

  it("past the grace period, leaves the run to its lock: another worker resumes it", async ({
    fx,
  }) => {
    const hasty = await fx.spawn("hasty", { ...FAST_TAKEOVER, graceMs: 100 });
    const { runId } = await fireSlow(fx, 2_000);
    await hasty.waitForLine(
      (line) => line.msg === "model request" && line.runId === runId,
      "the slow model request",
    );

    hasty.signal("SIGTERM");
    expect(await hasty.exited).toEqual({ code: 0, signal: null });
    expect((await fx.errand.store.readLog(runId)).map((event) => event.type)).toEqual([
      "run-queued",
      "run-started",
    ]);
    await fx.spawn("patient", FAST_TAKEOVER);
    const events = await fx.waitForEvent(runId);
    expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(events.filter((event) => event.type === "run-started").at(-1)?.data).toMatchObject({
      attempt: 2,
      workerId: "patient",
    });
  });
});

describe("the run-queued a run's job carries", () => {
  it("is its run-queued as logged, for an input small enough, and the worker runs the job", async ({
    fx,
  }) => {
    const worker = await inProcessWorker(fx, captureLogs());
    try {
      const small = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "carried" }] },
      });
      const large = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "x".repeat(MAX_CARRIED_QUEUED_BYTES) }] },
      });
      for (const { runId } of [small, large]) {
        expect(settleRun(foldRun(await fx.waitForEvent(runId)))).toMatchObject({
          status: "succeeded",
        });
      }
      const [queued] = await fx.errand.store.readLog(small.runId);
      expect((await fx.queue.getJob(small.runId))?.data).toEqual({
        runId: small.runId,
        queued: { at: queued?.at, data: queued?.data },
      });
      // A large input stays in the log alone: the job names the run, its worker reads the log.
      expect((await fx.queue.getJob(large.runId))?.data).toEqual({ runId: large.runId });
    } finally {
      await worker.close();
    }
  });

  it("is not taken for a job started before: a run back from its park resumes from its log", async ({
    fx,
  }) => {
    const logs = captureLogs();
    // Optimistic, a start from the carried run-queued would ask the model before any append.
    const worker = await inProcessWorker(fx, logs, { optimisticStart: true });
    try {
      const { runId } = await fx.errand.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ call: [{ tool: "approve", args: {} }] }, { say: "done" }] },
      });
      const parked = await logs.waitFor(
        (line) => line.msg === "run parked on a waitpoint" && line.runId === runId,
      );
      // The answer promotes the parked job: it comes back never retried nor stalled, its delay 0.
      await fx.errand.waitpoints.complete(String(parked.waitpoint), { approved: true });
      const events = await fx.waitForEvent(runId);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", text: "done" });
      expect(events.filter((event) => event.type === "run-started")).toHaveLength(2);
    } finally {
      await worker.close();
    }
  });

  it("is left out by a client in the first step of the upgrade, and such a job runs from the log", async ({
    fx,
  }) => {
    const firstStep = createErrand({
      connection: fx.server.url,
      prefix: fx.prefix,
      logEntries: "per-event",
    });
    const worker = await inProcessWorker(fx, captureLogs());
    try {
      const { runId } = await firstStep.fire({
        agent: TEST_AGENTS.plain,
        input: { script: [{ say: "from the log" }] },
      });
      expect(settleRun(foldRun(await fx.waitForEvent(runId)))).toMatchObject({
        status: "succeeded",
        text: "from the log",
      });
      // What a worker older than carried run-queued events reads: { runId } alone.
      expect((await fx.queue.getJob(runId))?.data).toEqual({ runId });
    } finally {
      await worker.close();
      await firstStep.close();
    }
  });
});
