import { EVENT_VERSION, type NewEvent, type RunEvent } from "@errand/core";
import { describe, expect, it } from "vitest";
import { buildWaterfall, type WaterfallBar } from "./waterfall.js";

const RUN_ID = "01JWATERFALL00000000000001";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");

/** `t` seconds after the run's creation. */
const at = (t: number) => new Date(T0 + t * 1_000).toISOString();

/** A log from `[seconds, event]` pairs, in order. */
function log(...entries: [number, Omit<NewEvent, "at">][]): RunEvent[] {
  return entries.map(
    ([t, event], index) =>
      ({ v: EVENT_VERSION, runId: RUN_ID, seq: index + 1, at: at(t), ...event }) as RunEvent,
  );
}

const usage = { inputTokens: 10, outputTokens: 5 };
const queued = {
  type: "run-queued",
  data: {
    agent: "city",
    input: {},
    rootRunId: RUN_ID,
    depth: 0,
    limits: { maxSteps: 8 },
    metadata: {},
  },
} as const;
const started = (attempt = 1) =>
  ({ type: "run-started", data: { attempt, workerId: "w1" } }) as const;
const responded = (step: number, calls: { callId: string; name: string }[] = []) =>
  ({
    type: "model-responded",
    data: { step, calls: calls.map((c) => ({ ...c, args: {} })), usage, finish: "stop" },
  }) as const;
const called = (step: number, callId: string, name: string) =>
  ({ type: "tool-called", data: { step, callId, name, args: {} } }) as const;
const result = (step: number, callId: string, ok = true) =>
  ({ type: "tool-result", data: { step, callId, ok, bytes: 2, truncated: false } }) as const;

/** The bars as `kind label offset+duration outcome`, seconds. */
const shape = (bars: WaterfallBar[]) =>
  bars.map(
    (b) => `${b.kind} ${b.label} ${b.offsetMs / 1_000}+${b.durationMs / 1_000} ${b.outcome}`,
  );

describe("buildWaterfall", () => {
  it("places the queue, each model request and each tool call of a settled run on one axis", () => {
    const events = log(
      [0, queued],
      [2, started()],
      [
        5,
        responded(1, [
          { callId: "c1", name: "search" },
          { callId: "c2", name: "fetch" },
        ]),
      ],
      [5, called(1, "c1", "search")],
      [9, result(1, "c1")],
      [9, called(1, "c2", "fetch")],
      [10, result(1, "c2", false)],
      [13, responded(2)],
      [13, { type: "finished", data: {} }],
    );
    const waterfall = buildWaterfall(events, at(100));
    expect(shape(waterfall.bars)).toEqual([
      "queued queued 0+2 ok",
      "model model · step 1 2+3 ok",
      "tool search 5+4 ok",
      "tool fetch 9+1 error",
      "model model · step 2 10+3 ok",
    ]);
    expect(waterfall.endAt).toBe(at(13));
    expect(waterfall.totalMs).toBe(13_000);
    expect(waterfall.waitingOn).toBeUndefined();
  });

  it("shows a park as a wait until the run resumes, then the parking call run again", () => {
    const collect = [{ callId: "k1", name: "collect_agents" }];
    const reason = "waiting for 4 of 12 runs to settle";
    const parked = {
      type: "run-parked",
      data: { step: 1, callId: "k1", waitFor: ["a", "b", "c", "d"], reason },
    } as const;
    const events = log(
      [0, queued],
      [1, started()],
      [2, responded(1, collect)],
      [2, called(1, "k1", "collect_agents")],
      [3, parked],
      [30, started()],
    );
    const resumed = buildWaterfall(events, at(31));
    expect(shape(resumed.bars)).toEqual([
      "queued queued 0+1 ok",
      "model model · step 1 1+1 ok",
      "tool collect_agents 2+1 parked",
      `wait ${reason} 3+27 ok`,
      "tool collect_agents 30+1 open",
    ]);
    expect(resumed.waitingOn).toEqual({
      kind: "tool",
      label: "collect_agents",
      tool: "collect_agents",
      step: 1,
      since: at(30),
    });

    const whileParked = buildWaterfall(events.slice(0, 5), at(20));
    expect(whileParked.waitingOn).toEqual({
      kind: "wait",
      label: reason,
      waitingFor: 4,
      step: 1,
      since: at(3),
    });
    expect(whileParked.endAt).toBe(at(20));
  });

  it("says what an open run waits on: the queue, then the step in flight", () => {
    const events = log(
      [0, queued],
      [4, started()],
      [6, responded(1, [{ callId: "c1", name: "search" }])],
    );
    expect(buildWaterfall(events.slice(0, 1), at(3)).waitingOn).toEqual({
      kind: "queued",
      label: "queued",
      since: at(0),
    });
    expect(buildWaterfall(events.slice(0, 2), at(5)).waitingOn).toMatchObject({
      kind: "step",
      step: 1,
      since: at(4),
    });
    const later = log(
      [0, queued],
      [4, started()],
      [6, responded(1, [{ callId: "c1", name: "search" }])],
      [6, called(1, "c1", "search")],
      [8, result(1, "c1")],
    );
    const waterfall = buildWaterfall(later, at(20));
    expect(waterfall.waitingOn).toMatchObject({ kind: "step", step: 2, since: at(8) });
    expect(shape(waterfall.bars).at(-1)).toBe(
      "step step 2: model request, then its tool calls 8+12 open",
    );
  });

  it("cuts what a lost attempt was doing at the next attempt's start", () => {
    const events = log(
      [0, queued],
      [1, started(1)],
      [3, responded(1, [{ callId: "c1", name: "search" }])],
      [3, called(1, "c1", "search")],
      [4, result(1, "c1")],
      [40, started(2)],
      [42, responded(2)],
      [42, { type: "finished", data: {} }],
    );
    expect(shape(buildWaterfall(events, at(50)).bars)).toEqual([
      "queued queued 0+1 ok",
      "model model · step 1 1+2 ok",
      "tool search 3+1 ok",
      "lost attempt 1 lost: step 2: model request, then its tool calls 4+36 cut",
      "model model · step 2 40+2 ok",
    ]);
  });

  it("ends the model request a run failed on as an error, and a cancelled step as cut", () => {
    const failed = log(
      [0, queued],
      [1, started()],
      [9, { type: "failed", data: { code: "model_error", message: "503", retryable: true } }],
    );
    expect(shape(buildWaterfall(failed, at(20)).bars).at(-1)).toBe(
      "model model · step 1 1+8 error",
    );

    const cancelled = log(
      [0, queued],
      [1, started()],
      [2, { type: "cancel-requested", data: { by: "dashboard" } }],
      [5, { type: "cancelled", data: {} }],
    );
    const waterfall = buildWaterfall(cancelled, at(20));
    expect(shape(waterfall.bars).at(-1)).toBe(
      "step step 1: model request, then its tool calls 1+4 cut",
    );
    expect(waterfall.waitingOn).toBeUndefined();
  });

  it("shows no bar for calls refused or recorded, and nothing open once the output is recorded", () => {
    const events = log(
      [0, queued],
      [1, started()],
      [
        2,
        responded(1, [
          { callId: "c1", name: "nope" },
          { callId: "c2", name: "structured_output" },
        ]),
      ],
      [
        2,
        { type: "refused", data: { step: 1, callId: "c1", reason: "unknown-tool", message: "no" } },
      ],
      [2, { type: "output-recorded", data: { step: 1, callId: "c2", output: {} } }],
    );
    const waterfall = buildWaterfall(events, at(3));
    expect(shape(waterfall.bars)).toEqual(["queued queued 0+1 ok", "model model · step 1 1+1 ok"]);
    expect(waterfall.waitingOn).toBeUndefined();
  });
});
