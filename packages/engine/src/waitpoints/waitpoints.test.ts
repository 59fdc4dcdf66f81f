/**
 * Waitpoints end to end, on real worker processes: a run parked on a
 * waitpoint whose worker is SIGKILLed is answered from another process and
 * resumes on another worker, the answer handed to its call exactly once; a
 * second answer is refused; while it waits, its worker's one slot runs
 * another run; a wrong answer is refused with its issues while
 * the run keeps waiting; timeouts answer the call or fail the run; a cancel
 * while waiting settles `cancelled`.
 */
import { type ErrandError, foldRun, type RunEvent, runSoFar, settleRun } from "@errand/core";
import { openWaitpoints } from "@errand/core/ops";
import { describe, expect } from "vitest";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { TEST_AGENTS } from "../test-support/test-agents.js";
import { answerFromProcess, type WorkerProcess } from "../test-support/worker-processes.js";

const it = engineTest("waitpoints");

it.afterEach(({ fx }) => fx.killWorkers());

/** Fires a `plain` run that calls `tool` once, then says `done`. */
async function fireCalling(
  fx: EngineFixture,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const script = [{ call: [{ tool, args }] }, { say: "done" }];
  const { runId } = await fx.errand.fire({ agent: TEST_AGENTS.plain, input: { script } });
  return runId;
}

/** Waits until `worker` parked run `runId` on a waitpoint; resolves with its token. */
async function parkedOnWaitpoint(worker: WorkerProcess, runId: string): Promise<string> {
  const line = await worker.waitForLine(
    (l) => l.msg === "run parked on a waitpoint" && l.runId === runId,
    `run ${runId} parked on a waitpoint`,
  );
  return String(line.waitpoint);
}

/** Answers waitpoint `token` from a process of its own, as `answeredBy`. */
function answerElsewhere(fx: EngineFixture, token: string, answer: unknown, answeredBy: string) {
  return answerFromProcess({
    redisUrl: fx.server.url,
    prefix: fx.prefix,
    token,
    answer,
    answeredBy,
  });
}

function ofType(events: RunEvent[], type: RunEvent["type"]): RunEvent[] {
  return events.filter((event) => event.type === type);
}

function toolResults(events: RunEvent[]): unknown[] {
  return events.flatMap((e) => (e.type === "tool-result" ? [e.data.result] : []));
}

async function refusal(promise: Promise<unknown>): Promise<ErrandError> {
  return (await promise.then(
    () => expect.fail("the answer was taken"),
    (error: unknown) => error,
  )) as ErrandError;
}

describe("a run waiting on a waitpoint", () => {
  it("survives its worker's SIGKILL, is answered from another process, resumes on another worker and gets the answer once", async ({
    fx,
  }) => {
    const first = await fx.spawn("waitpoint-a");
    const runId = await fireCalling(fx, "approve");
    const token = await parkedOnWaitpoint(first, runId);
    first.signal("SIGKILL");
    await first.exited;
    const second = await fx.spawn("waitpoint-b");

    const answered = await answerElsewhere(fx, token, { approved: true }, "ada");
    expect(answered).toMatchObject({ ok: true, completed: { token, runId } });

    const events = await fx.waitForEvent(runId);
    const state = foldRun(events);
    expect(settleRun(state)).toMatchObject({ status: "succeeded", text: "done", attempts: 1 });
    expect(ofType(events, "run-started").map((e) => e.data)).toMatchObject([
      { attempt: 1, workerId: "waitpoint-a" },
      { attempt: 1, workerId: "waitpoint-b" },
    ]);
    expect(ofType(events, "waitpoint-completed")).toHaveLength(1);
    expect(toolResults(events)).toEqual([
      {
        answered: true,
        answer: { approved: true },
        answeredBy: "ada",
        answeredAt: expect.any(String),
      },
    ]);
    expect(Number(await fx.redis.get(fx.counters.answersHanded(runId)))).toBe(1);
    expect(second.lines.some((l) => l.msg === "run started" && l.runId === runId)).toBe(true);

    const again = await refusal(fx.errand.waitpoints.complete(token, { approved: false }));
    expect(again.code).toBe("waitpoint_answered");
    expect(again.message).toContain("already answered by ada");
    const fromProcess = await answerElsewhere(fx, token, { approved: false }, "bob");
    expect(fromProcess).toMatchObject({ ok: false, error: { code: "waitpoint_answered" } });
    expect(ofType(await fx.errand.store.readLog(runId), "waitpoint-completed")).toHaveLength(1);
  });

  it("frees its worker's one slot while it waits: another run starts and finishes there, then the answer resumes it", async ({
    fx,
  }) => {
    const worker = await fx.spawn("waitpoint-slot", { concurrency: 1 });
    const waitingRunId = await fireCalling(fx, "approve");
    const token = await parkedOnWaitpoint(worker, waitingRunId);

    const { runId: otherRunId } = await fx.errand.fire({
      agent: TEST_AGENTS.plain,
      input: { script: [{ say: "meanwhile" }] },
    });
    const other = await fx.waitForEvent(otherRunId);
    expect(settleRun(foldRun(other))).toMatchObject({ status: "succeeded", text: "meanwhile" });
    expect(ofType(other, "run-started").map((e) => e.data)).toMatchObject([
      { attempt: 1, workerId: "waitpoint-slot" },
    ]);
    const stillWaiting = foldRun(await fx.errand.store.readLog(waitingRunId));
    expect(settleRun(stillWaiting)).toBeUndefined();
    expect(openWaitpoints(stillWaiting).map((w) => w.token)).toEqual([token]);

    await fx.errand.waitpoints.complete(token, { approved: true });
    const events = await fx.waitForEvent(waitingRunId);
    expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", text: "done" });
  });

  it("refuses an answer that does not match the schema with its issues, keeps waiting, and takes a right one; the list shows it while it waits", async ({
    fx,
  }) => {
    const worker = await fx.spawn("waitpoint-schema");
    const runId = await fireCalling(fx, "ask", { question: "Ship the release?" });
    const token = await parkedOnWaitpoint(worker, runId);

    const listed = await fx.errand.waitpoints.list();
    expect(listed.items).toEqual([
      expect.objectContaining({
        token,
        runId,
        question: "Ship the release?",
        agent: TEST_AGENTS.plain,
      }),
    ]);
    expect((await fx.errand.waitpoints.list({ runId })).items.map((w) => w.token)).toEqual([token]);

    const wrong = await refusal(fx.errand.waitpoints.complete(token, { approve: "yes" }));
    expect(wrong.code).toBe("invalid_answer");
    expect(wrong.details?.issues).toEqual(
      expect.arrayContaining([expect.stringContaining("approve"), expect.stringContaining("note")]),
    );
    const waiting = foldRun(await fx.errand.store.readLog(runId));
    expect(runSoFar(waiting).waiting?.waitpoint?.token).toBe(token);

    await fx.errand.waitpoints.complete(token, { approve: true, note: "go" });
    const events = await fx.waitForEvent(runId);
    expect(settleRun(foldRun(events))?.status).toBe("succeeded");
    expect(toolResults(events)).toEqual([
      expect.objectContaining({ answer: { approve: true, note: "go" } }),
    ]);
    expect((await fx.errand.waitpoints.list()).items).toEqual([]);
  });

  it("answers the call that it timed out, and the model goes on; an answer after it is refused", async ({
    fx,
  }) => {
    await fx.spawn("waitpoint-timeout");
    const runId = await fireCalling(fx, "ask_briefly", { question: "Anyone there?" });
    const events = await fx.waitForEvent(runId);
    expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", text: "done" });
    expect(ofType(events, "waitpoint-timed-out")).toHaveLength(1);
    expect(toolResults(events)).toEqual([
      expect.objectContaining({ answered: false, timedOut: true }),
    ]);

    const token = foldRun(events).waitpoints[0]?.token ?? "";
    const late = await refusal(fx.errand.waitpoints.complete(token, "here"));
    expect(late.code).toBe("waitpoint_timeout");
  });

  it("fails the run waitpoint_timeout when the agent asks for that", async ({ fx }) => {
    await fx.spawn("waitpoint-timeout-fail");
    const runId = await fireCalling(fx, "ask_or_fail", { question: "Anyone there?" });
    const events = await fx.waitForEvent(runId);
    expect(settleRun(foldRun(events))?.error).toMatchObject({ code: "waitpoint_timeout" });
  });

  it("settles cancelled when cancelled while it waits, and takes no answer after", async ({
    fx,
  }) => {
    const worker = await fx.spawn("waitpoint-cancel");
    const runId = await fireCalling(fx, "approve");
    const token = await parkedOnWaitpoint(worker, runId);
    const cancelled = await fx.errand.cancel(runId, { reason: "no longer needed" });
    expect(cancelled.status).toBe("cancelled");
    const state = foldRun(await fx.errand.store.readLog(runId));
    expect(settleRun(state)?.status).toBe("cancelled");
    expect(openWaitpoints(state)).toEqual([]);
    const late = await refusal(fx.errand.waitpoints.complete(token, true));
    expect(late.code).toBe("run_settled");
  });
});
