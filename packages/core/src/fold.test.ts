import { describe, expect, it } from "vitest";
import { isErrandError } from "./errors.js";
import type { RunEvent } from "./events.js";
import { applyEvent, foldRun, initialRunState, isSettled } from "./fold.js";
import { settleRun } from "./run-result.js";
import { call, runLog } from "./test-support/log-builder.js";

/** Folds a log and settles it: the `Then` of most tests below. */
function settle(events: readonly RunEvent[]) {
  return settleRun(foldRun(events));
}

/** The error thrown by `fn`, which must throw. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}

describe("foldRun before a run settles", () => {
  it("given an empty log, the run is pending at seq 0 and has no result", () => {
    const state = foldRun([], "run-a");

    expect(state).toEqual(initialRunState("run-a"));
    expect(state.status).toBe("pending");
    expect(isSettled(state)).toBe(false);
    expect(settleRun(state)).toBeUndefined();
  });

  it("given a queued run, it is queued with its definition and creation time", () => {
    const log = runLog().queued({ agent: "researcher" });

    const state = foldRun(log.build());

    expect(state.status).toBe("queued");
    expect(state.queued?.agent).toBe("researcher");
    expect(state.createdAt).toBe(log.timeOf(1));
    expect(settleRun(state)).toBeUndefined();
  });

  it("given a started run, it is running on its worker", () => {
    const log = runLog().queued().started(1, "worker-a");

    const state = foldRun(log.build());

    expect(state).toMatchObject({ status: "running", attempts: 1, workerId: "worker-a", seq: 2 });
    expect(state.startedAt).toBe(log.timeOf(2));
    expect(settleRun(state)).toBeUndefined();
  });

  it("given a parked run, it is running and says what it waits for until a run-started resumes it", () => {
    const collect = call("call_2", "collect_agents", { wait: true });
    const log = runLog()
      .queued()
      .started(1, "worker-a")
      .modelResponded(1, { calls: [collect] })
      .toolCalled(1, collect)
      .parked(1, "call_2", ["R-child-1", "R-child-2"], "waiting for 2 of 3 runs to settle");

    const parked = foldRun(log.build());
    expect(parked.status).toBe("running");
    expect(parked.parked).toEqual({
      step: 1,
      callId: "call_2",
      waitFor: ["R-child-1", "R-child-2"],
      reason: "waiting for 2 of 3 runs to settle",
      since: log.timeOf(5),
    });
    expect(settleRun(parked)).toBeUndefined();

    const resumed = foldRun(log.started(1, "worker-b").build());
    expect(resumed).toMatchObject({ status: "running", attempts: 1, workerId: "worker-b" });
    expect(resumed.parked).toBeUndefined();
  });

  it("sums the time a run spent parked, each park up to the run-started that resumed it", () => {
    const collect = call("call_2", "collect_agents", { wait: true });
    const log = runLog()
      .queued()
      .started()
      .modelResponded(1, { calls: [collect] })
      .toolCalled(1, collect)
      .parked(1, "call_2", ["R-child-1"]);
    expect(foldRun(log.build()).parkedMs).toBeUndefined();
    // The log builder puts each event a second after the one before.
    log.started().toolResult(1, "call_2", { result: { done: true } });
    log.modelResponded(2, { calls: [collect] }).toolCalled(2, collect);
    log.parked(2, "call_2", ["R-child-2"]);
    expect(foldRun(log.build()).parkedMs).toBe(1_000);
    const resumedTwice = foldRun(log.started().build());
    expect(resumedTwice.parkedMs).toBe(2_000);
    expect(resumedTwice.startedAt).toBe(log.timeOf(2));
  });

  it("given a cancel request, the run is not settled yet but remembers the first request", () => {
    const log = runLog()
      .queued()
      .started()
      .cancelRequested({ reason: "user changed their mind", by: "cli" })
      .cancelRequested({ reason: "second request", by: "dashboard" });

    const state = foldRun(log.build());

    expect(state.status).toBe("running");
    expect(state.cancelRequested).toEqual({ reason: "user changed their mind", by: "cli" });
    expect(settleRun(state)).toBeUndefined();
  });
});

describe("foldRun settles at the FIRST terminal event", () => {
  const base = () => runLog().queued().started().modelResponded(1, { text: "all done" });

  it("when finished is followed by failed, the run stays succeeded as of finished", () => {
    const log = base().finished("all done").failed("model_error");

    const state = foldRun(log.build());

    expect(state.status).toBe("succeeded");
    expect(state.error).toBeUndefined();
    expect(state.settledAt).toBe(log.timeOf(4));
    expect(state.seq).toBe(5);
  });

  it("when failed is followed by finished, the run stays failed with the first code", () => {
    const log = base().failed("timeout").finished("late text");

    const result = settle(log.build());

    expect(result?.status).toBe("failed");
    expect(result?.error?.code).toBe("timeout");
    expect(result?.text).toBeUndefined();
    expect(result?.settledAt).toBe(log.timeOf(4));
  });

  it("when cancelled is followed by anything, nothing after it counts", () => {
    const log = base()
      .cancelled({ reason: "stop" })
      .modelResponded(2, { usage: { inputTokens: 999, outputTokens: 999 } })
      .started(2)
      .finished("ignored");

    const state = foldRun(log.build());

    expect(state.status).toBe("cancelled");
    expect(state.steps).toHaveLength(1);
    expect(state.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(state.attempts).toBe(1);
    expect(state.text).toBeUndefined();
  });
});

describe("finished", () => {
  it("without a schema, succeeds with the closing text", () => {
    const log = runLog().queued().started().modelResponded(1, { text: "Tides follow the moon." });

    const result = settle(log.finished("Tides follow the moon.").build());

    expect(result).toMatchObject({ status: "succeeded", text: "Tides follow the moon." });
    expect(result).not.toHaveProperty("output");
    expect(result).not.toHaveProperty("error");
  });

  it("without a schema or text, succeeds without a text field", () => {
    const result = settle(runLog().queued().started().modelResponded(1).finished().build());

    expect(result?.status).toBe("succeeded");
    expect(result).not.toHaveProperty("text");
  });
});

describe("cancelled is cancelled, never failed", () => {
  it("takes the reason from the cancelled event", () => {
    const result = settle(runLog().queued().started().cancelled({ reason: "shutdown" }).build());

    expect(result?.status).toBe("cancelled");
    expect(result?.error).toEqual({
      code: "cancelled",
      message: "the run was cancelled: shutdown",
      retryable: false,
    });
  });

  it("takes the reason from cancel-requested when cancelled carries none", () => {
    const log = runLog().queued().started().cancelRequested({ reason: "budget", by: "parent" });

    const result = settle(log.cancelled().build());

    expect(result?.status).toBe("cancelled");
    expect(result?.error?.message).toBe("the run was cancelled: budget");
  });

  it("prefers the cancelled event's own reason over the request's", () => {
    const log = runLog().queued().started().cancelRequested({ reason: "budget" });

    const result = settle(log.cancelled({ reason: "parent cancelled" }).build());

    expect(result?.error?.message).toBe("the run was cancelled: parent cancelled");
  });

  it("has a plain message when nobody gave a reason", () => {
    const result = settle(runLog().queued().cancelled().build());

    expect(result?.status).toBe("cancelled");
    expect(result?.error?.message).toBe("the run was cancelled");
    expect(result?.attempts).toBe(0);
    expect(result).not.toHaveProperty("startedAt");
  });
});

describe("failed keeps its own code", () => {
  it("copies code, message and retryable from the failed event", () => {
    const log = runLog().queued().started().failed("max_steps", "the run used its 8 steps", false);

    const result = settle(log.build());

    expect(result?.status).toBe("failed");
    expect(result?.error).toEqual({
      code: "max_steps",
      message: "the run used its 8 steps",
      retryable: false,
    });
  });

  it("keeps retryable when the failure says so", () => {
    const result = settle(runLog().queued().started().failed("worker_lost", "gone", true).build());

    expect(result?.error).toEqual({ code: "worker_lost", message: "gone", retryable: true });
  });
});

describe("the log's integrity", () => {
  const clean = runLog()
    .queued()
    .started()
    .modelResponded(1, { calls: [call("c1", "search", { q: "moon" })] })
    .toolRan(1, call("c1", "search", { q: "moon" }), { hits: 3 })
    .modelResponded(2, { text: "three hits" })
    .finished("three hits")
    .build();

  it("skips an event whose seq was already folded (delivery is at-least-once)", () => {
    const [first, second, third, ...rest] = clean;
    const repeated = [first!, second!, first!, third!, third!, second!, ...rest, ...clean];

    expect(foldRun(repeated)).toEqual(foldRun(clean));
  });

  it("applying one event at a time gives the same state as folding the log", () => {
    let state = initialRunState(clean[0]!.runId);
    for (const event of clean) state = applyEvent(state, event);

    expect(state).toEqual(foldRun(clean));
  });

  it("never changes a state it is given: every state stays as it was while later events are folded", () => {
    const deepFreeze = <T>(value: T): T => {
      if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const inner of Object.values(value)) deepFreeze(inner);
      }
      return value;
    };
    const structured = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [call("c1", "structured_output", { name: 1 })] })
      .refused({
        step: 1,
        callId: "c1",
        name: "structured_output",
        reason: "invalid-arguments",
        message: "Error: invalid arguments",
        issues: ["name: expected string"],
      })
      .modelResponded(2, { calls: [call("c2", "structured_output", { name: "a" })] })
      .outputRecorded(2, "c2", { name: "a" })
      .outputRecorded(2, "c2", { name: "b" })
      .finished()
      .build();
    const cancelled = runLog()
      .queued()
      .started()
      .cancelRequested()
      .cancelRequested()
      .cancelled()
      .build();
    for (const log of [clean, structured, cancelled]) {
      let state = deepFreeze(initialRunState(log[0]!.runId));
      // Frozen states throw on any write (modules are strict): a fold that wrote to its input would fail here.
      for (const event of log) state = deepFreeze(applyEvent(state, event));
      expect(state).toEqual(foldRun(log));
    }
  });

  it("throws seq_gap when an event is missing", () => {
    const withGap = clean.filter((event) => event.seq !== 3);

    const error = thrownBy(() => foldRun(withGap));

    expect(isErrandError(error, "seq_gap")).toBe(true);
    expect(isErrandError(error) && error.details).toEqual({
      runId: clean[0]!.runId,
      expectedSeq: 3,
      seq: 4,
    });
  });

  it("throws invalid_event rather than fold another run's event into this one", () => {
    const stranger = runLog("01JOTHERRUN000000000000000").queued().started().build()[1]!;

    const error = thrownBy(() => foldRun([...clean.slice(0, 1), stranger]));
    const wrongId = thrownBy(() => foldRun(clean, "01JOTHERRUN000000000000000"));

    expect(isErrandError(error, "invalid_event")).toBe(true);
    expect(isErrandError(wrongId, "invalid_event")).toBe(true);
  });

  it("throws seq_gap when the log does not start at seq 1", () => {
    const error = thrownBy(() => foldRun(clean.slice(1)));

    expect(isErrandError(error, "seq_gap")).toBe(true);
  });
});

describe("a step's output items", () => {
  it("keeps each response's items and id on its step, as logged", () => {
    const items = [
      { type: "reasoning" as const, id: "rs_1", summary: ["Plan."], encryptedContent: "enc-1" },
      { type: "function_call" as const, id: "fc_1", callId: "c1" },
    ];
    const log = runLog()
      .queued()
      .started()
      .modelResponded(1, { calls: [call("c1", "lookup")], items, responseId: "resp_1" })
      .modelResponded(2, { text: "done" });

    const [first, second] = foldRun(log.build()).steps;

    expect(first).toMatchObject({ step: 1, items, responseId: "resp_1" });
    expect(second).not.toHaveProperty("items");
    expect(second).not.toHaveProperty("responseId");
  });
});

describe("counters", () => {
  it("sums usage over every step", () => {
    const log = runLog()
      .queued()
      .started()
      .modelResponded(1, { usage: { inputTokens: 100, outputTokens: 7 } })
      .modelResponded(2, { usage: { inputTokens: 250, outputTokens: 40 } })
      .modelResponded(3, { usage: { inputTokens: 1, outputTokens: 0 } })
      .finished();

    const result = settle(log.build());

    expect(result?.usage).toEqual({ inputTokens: 351, outputTokens: 47 });
    expect(result?.steps).toBe(3);
  });

  it("sums cached and reasoning tokens from the steps that report them, and leaves them out when none does", () => {
    const log = runLog()
      .queued()
      .started()
      .modelResponded(1, { usage: { inputTokens: 100, outputTokens: 7 } })
      .modelResponded(2, {
        usage: { inputTokens: 250, outputTokens: 40, cachedInputTokens: 90, reasoningTokens: 30 },
      })
      .modelResponded(3, { usage: { inputTokens: 300, outputTokens: 9, cachedInputTokens: 240 } })
      .finished();

    expect(settle(log.build())?.usage).toEqual({
      inputTokens: 650,
      outputTokens: 56,
      cachedInputTokens: 330,
      reasoningTokens: 30,
    });
    const plain = runLog().queued().started().modelResponded(1).finished().build();
    expect(Object.keys(settle(plain)?.usage ?? {})).toEqual(["inputTokens", "outputTokens"]);
  });

  it("counts attempts as the highest run-started attempt, and keeps the first start time", () => {
    const log = runLog().queued().started(1, "worker-a").started(3, "worker-c").started(2);

    const state = foldRun(log.build());

    expect(state.attempts).toBe(3);
    expect(state.startedAt).toBe(log.timeOf(2));
    expect(state.workerId).toBe("worker-2");
  });

  it("counts a step per model response, zero when the model never answered", () => {
    expect(settle(runLog().queued().started().failed("model_error").build())?.steps).toBe(0);
  });
});
