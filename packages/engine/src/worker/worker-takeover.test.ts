/**
 * A worker process that dies mid-run, and one that comes back from the dead.
 *
 * Killed: worker A runs step 1 (the side-effecting `bump` tool) and is inside
 * the slow step 2 when it is SIGKILLed; worker B takes the job over once A's
 * lock lapses and resumes the run from its log — bump ran once, step 1's
 * model response was not asked for again, one output, one terminal event.
 *
 * Zombie: worker A is SIGSTOPped inside step 2 past its lock; B finishes the
 * run; A is SIGCONTed, tries to append its step, is refused and writes
 * nothing; the result is the one a clean run gives. Both with the fast
 * settings of the other tests and with the default job locks.
 *
 * Default job locks: of two workers with the default settings, the one
 * running a run is SIGKILLed; the other runs it again well within the 30 s
 * the lock lasted before (the bound is generous: the behaviour itself is a
 * time bound, on a noisy machine).
 */
import { foldRun, type RunEvent, type RunResult, settleRun } from "@errand/core";
import { describe, expect } from "vitest";
import { type EngineFixture, FAST_TAKEOVER } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { AnswerSchema, TEST_AGENTS } from "../test-support/test-agents.js";
import type {
  LogLine,
  SpawnWorkerOptions,
  WorkerProcess,
} from "../test-support/worker-processes.js";

const it = engineTest("takeover");

it.afterEach(({ fx }) => fx.killWorkers());

/** Step 1 bumps the side-effect counter; step 2 is slow, then records `answer`. */
function twoStepScript(answer: string, sleepMs: number) {
  return [
    { call: [{ tool: "bump", args: {} }] },
    { sleepMs, call: [{ tool: "structured_output", args: { answer } }] },
  ];
}

async function fireTwoStep(fx: EngineFixture, answer: string, sleepMs: number): Promise<string> {
  const { runId } = await fx.errand.fire({
    agent: TEST_AGENTS.structured,
    input: { script: twoStepScript(answer, sleepMs) },
    outputSchema: AnswerSchema,
  });
  return runId;
}

/** Waits until `worker` has asked the model for `step` of run `runId`. */
function askedForStep(worker: WorkerProcess, runId: string, step: number): Promise<LogLine> {
  return worker.waitForLine(
    (line) => line.msg === "model request" && line.runId === runId && line.step === step,
    `a model request for step ${step} of ${runId}`,
  );
}

async function counter(fx: EngineFixture, key: string): Promise<number> {
  return Number((await fx.redis.get(key)) ?? 0);
}

function count(events: RunEvent[], types: readonly string[]): number {
  return events.filter((event) => types.includes(event.type)).length;
}

/** What must not depend on who ran the run, or how many attempts it took. */
function outcome(result: RunResult | undefined) {
  const { status, output, text, error, steps, usage } = result ?? ({} as RunResult);
  return { status, output, text, error, steps, usage };
}

describe("a worker killed mid-run", () => {
  it("is replaced by another that resumes from the log without redoing logged work", async ({
    fx,
  }) => {
    const workerA = await fx.spawn("killed-a", FAST_TAKEOVER);
    const runId = await fireTwoStep(fx, "survived", 3_000);
    await askedForStep(workerA, runId, 2);
    const beforeKill = await fx.errand.store.readLog(runId);
    expect(beforeKill.map((event) => event.type)).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "tool-result",
    ]);

    workerA.signal("SIGKILL");
    expect(await workerA.exited).toMatchObject({ signal: "SIGKILL" });
    const workerB = await fx.spawn("rescuer-b", FAST_TAKEOVER);
    const events = await fx.waitForEvent(runId);

    expect(await counter(fx, fx.counters.toolRuns(runId))).toBe(1);
    expect(await counter(fx, fx.counters.modelRequests(runId, 1))).toBe(1);
    expect(await counter(fx, fx.counters.modelRequests(runId, 2))).toBe(2); // A's, lost with A, and B's
    expect(events.slice(0, beforeKill.length)).toEqual(beforeKill);
    expect(events.slice(beforeKill.length).map((event) => event.type)).toEqual([
      "run-started",
      "model-responded",
      "output-recorded",
      "finished",
    ]);
    expect(count(events, ["output-recorded"])).toBe(1);
    expect(count(events, ["finished", "failed", "cancelled"])).toBe(1);
    expect(events[beforeKill.length]).toMatchObject({
      data: { attempt: 2, workerId: "rescuer-b" },
    });
    expect(settleRun(foldRun(events))).toMatchObject({
      status: "succeeded",
      output: { answer: "survived" },
      attempts: 2,
    });
    await workerB.waitForLine(
      (line) => line.msg === "run started" && line.runId === runId && line.resumeFromStep === 1,
      "the resumed run's start",
    );
  });
});

/** The job-lock settings a case runs its workers with: the fast ones of these tests, or none (the defaults). */
const LOCK_SETTINGS: [string, Partial<SpawnWorkerOptions>][] = [
  ["fast takeover settings", FAST_TAKEOVER],
  ["the default job locks", {}],
];

describe("a zombie worker", () => {
  it.for(LOCK_SETTINGS)(
    "has its late writes refused, and the run ends as a clean run does (%s)",
    async ([_, settings], { fx }) => {
      const zombie = await fx.spawn("zombie-a", settings);
      const runId = await fireTwoStep(fx, "once", 2_500);
      await askedForStep(zombie, runId, 2);
      zombie.signal("SIGSTOP");

      const rescuer = await fx.spawn("rescuer-b", settings);
      const events = await fx.waitForEvent(runId);
      expect(events.at(-1)?.type).toBe("finished");

      zombie.signal("SIGCONT");
      await zombie.waitForLine(
        (line) => line.msg === "append refused: reading the log again" && line.runId === runId,
        "its refused append",
      );
      await zombie.waitForLine(
        (line) => line.msg === "run already settled" && line.runId === runId,
        "its reading that the run settled",
      );
      expect(await fx.errand.store.readLog(runId)).toEqual(events);
      expect(events.filter((event) => event.type === "run-started").map((e) => e.data)).toEqual([
        { attempt: 1, workerId: "zombie-a", agentVersion: expect.any(String) },
        { attempt: 2, workerId: "rescuer-b", agentVersion: expect.any(String) },
      ]);
      expect(await counter(fx, fx.counters.toolRuns(runId))).toBe(1);

      const cleanRunId = await fireTwoStep(fx, "once", 2_500); // the same input, so the same usage
      const clean = await fx.waitForEvent(cleanRunId);
      expect(outcome(settleRun(foldRun(events)))).toEqual(outcome(settleRun(foldRun(clean))));
      expect(events.map((event) => event.type).filter((type) => type !== "run-started")).toEqual(
        clean.map((event) => event.type).filter((type) => type !== "run-started"),
      );
      expect(rescuer.child.exitCode).toBeNull();
    },
  );
});

/** How soon, at most, a killed worker's run must run again with the default job locks (before: a 30 s lock). */
const DEFAULT_TAKEOVER_BOUND_MS = 20_000;

describe("the default job locks", () => {
  it("run a killed worker's run again on another worker well within the old 30 s lock", async ({
    fx,
  }) => {
    const workers = await Promise.all([fx.spawn("default-a"), fx.spawn("default-b")]);
    const runId = await fireTwoStep(fx, "soon", 2_000);
    const started = (await fx.waitForEvent(runId, (event) => event.type === "run-started")).at(-1);
    const holderId = started?.type === "run-started" ? started.data.workerId : undefined;
    const holder = workers.find((worker) => worker.workerId === holderId);
    const rescuer = workers.find((worker) => worker !== holder);
    if (holder === undefined || rescuer === undefined) throw new Error(`no holder: ${holderId}`);
    await askedForStep(holder, runId, 2);

    holder.signal("SIGKILL");
    const killedAt = Date.now();
    await holder.exited;
    const events = await fx.waitForEvent(
      runId,
      (event) => event.type === "run-started" && event.data.workerId === rescuer.workerId,
    );
    expect(Date.now() - killedAt).toBeLessThan(DEFAULT_TAKEOVER_BOUND_MS);
    expect(events.at(-1)).toMatchObject({ data: { attempt: 2 } });
    expect(settleRun(foldRun(await fx.waitForEvent(runId)))).toMatchObject({
      status: "succeeded",
      output: { answer: "soon" },
    });
  }, 120_000); // two workers to start and a run to finish on a loaded machine, besides the bound
});
