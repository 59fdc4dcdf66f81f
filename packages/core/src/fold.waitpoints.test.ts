import { describe, expect, it } from "vitest";
import { foldRun } from "./fold.js";
import { runSoFar, settleRun } from "./run-result.js";
import { call, runLog } from "./test-support/log-builder.js";
import {
  isWaitpointOverdue,
  openWaitpoints,
  parkedWaitpoint,
  parseWaitpointToken,
  waitpointToken,
} from "./waitpoint.js";

const RUN_ID = "R01KJQ3M0A007ZK9V4QN2W8TT6EBX";
const ASK = call("call_ask", "ask", { question: "Ship it?" });
const TOKEN = waitpointToken({ runId: RUN_ID, step: 1, callId: ASK.callId });

/** A run parked on an `ask` waitpoint that times out at the given instant. */
function parkedOnAsk(timeoutAt = "2026-01-01T01:00:00.000Z") {
  return runLog(RUN_ID)
    .queued()
    .started()
    .modelResponded(1, { calls: [ASK] })
    .toolCalled(1, ASK)
    .add("waitpoint-created", {
      step: 1,
      callId: ASK.callId,
      token: TOKEN,
      question: "Ship it?",
      answerSchema: { type: "boolean" },
      timeoutAt,
      onTimeout: "result",
    })
    .parked(1, ASK.callId, [], "waiting for an answer: Ship it?");
}

describe("waitpoint tokens", () => {
  it("encode the run, step and call, and read back", () => {
    expect(parseWaitpointToken(TOKEN)).toEqual({ runId: RUN_ID, step: 1, callId: "call_ask" });
    const odd = waitpointToken({ runId: RUN_ID, step: 12, callId: "call.with:odd/chars é" });
    expect(parseWaitpointToken(odd).callId).toBe("call.with:odd/chars é");
  });

  it("refuse what is not a token with invalid_spec", () => {
    for (const bad of ["", RUN_ID, `${RUN_ID}.0.YQ`, `x.1.YQ`, `${RUN_ID}.1.@@`, `${TOKEN}.x`]) {
      expect(() => parseWaitpointToken(bad), bad).toThrow(
        expect.objectContaining({ code: "invalid_spec" }),
      );
    }
  });
});

describe("the fold of waitpoints", () => {
  it("given a run parked on a waitpoint, it is running, waiting on the question", () => {
    const state = foldRun(parkedOnAsk().build());
    expect(state.status).toBe("running");
    expect(parkedWaitpoint(state)?.status).toBe("waiting");
    expect(openWaitpoints(state).map((w) => w.token)).toEqual([TOKEN]);
    expect(runSoFar(state).waiting).toEqual({
      reason: "waiting for an answer: Ship it?",
      since: state.parked?.since,
      runs: 0,
      waitpoint: {
        token: TOKEN,
        question: "Ship it?",
        answerSchema: { type: "boolean" },
        timeoutAt: "2026-01-01T01:00:00.000Z",
      },
    });
  });

  it("when it is answered, the first answer stands with who answered and when", () => {
    const log = parkedOnAsk()
      .add("waitpoint-completed", { token: TOKEN, answer: true, answeredBy: "ada" })
      .add("waitpoint-completed", { token: TOKEN, answer: false, answeredBy: "bob" })
      .add("waitpoint-timed-out", { token: TOKEN });
    const state = foldRun(log.build());
    expect(state.waitpoints).toEqual([
      expect.objectContaining({
        status: "answered",
        answer: true,
        answeredBy: "ada",
        closedAt: log.timeOf(7),
      }),
    ]);
    expect(openWaitpoints(state)).toEqual([]);
    expect(runSoFar(state).waiting?.waitpoint).toBeUndefined();
  });

  it("when it times out first, a later answer is ignored", () => {
    const log = parkedOnAsk()
      .add("waitpoint-timed-out", { token: TOKEN })
      .add("waitpoint-completed", { token: TOKEN, answer: true });
    const [waitpoint] = foldRun(log.build()).waitpoints;
    expect(waitpoint).toMatchObject({ status: "timed-out", closedAt: log.timeOf(7) });
    expect(waitpoint?.answer).toBeUndefined();
  });

  it("is overdue only while waiting and past its timeout", () => {
    const [waitpoint] = foldRun(parkedOnAsk("2026-01-01T01:00:00.000Z").build()).waitpoints;
    expect(isWaitpointOverdue(waitpoint!, new Date("2026-01-01T00:59:59.999Z"))).toBe(false);
    expect(isWaitpointOverdue(waitpoint!, new Date("2026-01-01T01:00:00.000Z"))).toBe(true);
  });

  it("a run cancelled while it waits settles cancelled with no waitpoint open", () => {
    const state = foldRun(
      parkedOnAsk().cancelRequested({ reason: "no one home" }).cancelled().build(),
    );
    expect(settleRun(state)?.status).toBe("cancelled");
    expect(openWaitpoints(state)).toEqual([]);
  });
});
