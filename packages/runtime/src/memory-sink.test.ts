import { isErrandError, type NewEvent } from "@errand/core";
import { describe, expect, it } from "vitest";
import { createMemorySink } from "./memory-sink.js";
import { testRunId } from "./test-support/runs.js";

const at = "2026-01-01T00:00:00.000Z";

const queued: NewEvent = {
  type: "run-queued",
  at,
  data: {
    agent: "writer",
    input: "hi",
    rootRunId: "root",
    depth: 0,
    limits: { maxSteps: 3 },
    metadata: {},
  },
};
const started: NewEvent = { type: "run-started", at, data: { attempt: 1, workerId: "w1" } };
const finished: NewEvent = { type: "finished", at, data: { text: "done" } };
const recorded = (callId: string): NewEvent => ({
  type: "output-recorded",
  at,
  data: { step: 1, callId, output: { ok: true } },
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("the append should have been refused"),
    (error: unknown) => error,
  );
}

describe("createMemorySink", () => {
  it("gives appended events consecutive seqs after the expected one and keeps them", async () => {
    const sink = createMemorySink();
    const runId = testRunId();
    const first = await sink.append(runId, 0, [queued, started]);
    const second = await sink.append(runId, 2, [finished]);
    expect(first.map((e) => [e.seq, e.type, e.runId])).toEqual([
      [1, "run-queued", runId],
      [2, "run-started", runId],
    ]);
    expect(second.map((e) => e.seq)).toEqual([3]);
    expect(sink.events(runId).map((e) => e.type)).toEqual([
      "run-queued",
      "run-started",
      "finished",
    ]);
    expect(sink.state(runId)).toMatchObject({ status: "succeeded", text: "done", seq: 3 });
  });

  it("refuses a stale expected seq with seq_conflict and writes nothing", async () => {
    const sink = createMemorySink();
    const runId = testRunId();
    await sink.append(runId, 0, [queued, started]);
    const error = await rejection(sink.append(runId, 1, [finished]));
    expect(isErrandError(error, "seq_conflict")).toBe(true);
    expect(sink.events(runId)).toHaveLength(2);
  });

  it("refuses anything after a terminal event with run_settled", async () => {
    const sink = createMemorySink();
    const runId = testRunId();
    await sink.append(runId, 0, [queued, started, finished]);
    const error = await rejection(
      sink.append(runId, 3, [{ type: "cancel-requested", at, data: {} }]),
    );
    expect(isErrandError(error, "run_settled")).toBe(true);
  });

  it("refuses a batch whose terminal event is not its last", async () => {
    const sink = createMemorySink();
    const runId = testRunId();
    const error = await rejection(sink.append(runId, 0, [queued, finished, started]));
    expect(isErrandError(error, "run_settled")).toBe(true);
    expect(sink.events(runId)).toEqual([]);
  });

  it("refuses a second output-recorded, in the same batch or a later one", async () => {
    const sink = createMemorySink();
    const runId = testRunId();
    const same = await rejection(
      sink.append(runId, 0, [queued, started, recorded("a"), recorded("b")]),
    );
    expect(isErrandError(same, "output_already_recorded")).toBe(true);
    await sink.append(runId, 0, [queued, started, recorded("a")]);
    const later = await rejection(sink.append(runId, 3, [recorded("b")]));
    expect(isErrandError(later, "output_already_recorded")).toBe(true);
  });

  it("refuses an event that does not match its schema with invalid_event", async () => {
    const sink = createMemorySink();
    const runId = testRunId();
    const bad = { type: "run-started", at, data: { attempt: 0, workerId: "" } } as NewEvent;
    const error = await rejection(sink.append(runId, 0, [bad]));
    expect(isErrandError(error, "invalid_event")).toBe(true);
  });

  it("keeps each run's log apart", async () => {
    const sink = createMemorySink();
    const a = testRunId();
    const b = testRunId();
    await sink.append(a, 0, [queued]);
    await sink.append(b, 0, [queued, started]);
    expect(sink.events(a)).toHaveLength(1);
    expect(sink.events(b)).toHaveLength(2);
    expect(sink.events(testRunId())).toEqual([]);
  });
});
