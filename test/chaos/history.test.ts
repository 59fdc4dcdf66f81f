import type { RunEvent } from "@errand/core";
import { describe, expect, it } from "vitest";
import { historyProblems } from "./history.js";

const RUN_ID = "run-1";
const AT = "2026-01-01T00:00:00.000Z";
const USAGE = { inputTokens: 1, outputTokens: 1 };

/** A log of `events` (type and data), numbered from 1 unless an event names its seq. */
function log(...events: { type: RunEvent["type"]; data: unknown; seq?: number }[]): RunEvent[] {
  return events.map(
    ({ type, data, seq }, i) =>
      ({ v: 1, runId: RUN_ID, seq: seq ?? i + 1, type, at: AT, data }) as RunEvent,
  );
}

const queued = { type: "run-queued", data: {} } as const;
const started = (attempt: number) =>
  ({ type: "run-started", data: { attempt, workerId: `w${attempt}` } }) as const;
const responded = (step: number) =>
  ({ type: "model-responded", data: { step, calls: [], usage: USAGE, finish: "stop" } }) as const;
const result = (step: number, callId: string) =>
  ({
    type: "tool-result",
    data: { step, callId, ok: true, bytes: 1, truncated: false },
  }) as const;
const finished = { type: "finished", data: {} } as const;

describe("historyProblems", () => {
  it("finds nothing wrong in a run resumed by a second attempt from where the first stopped", () => {
    const events = log(
      queued,
      started(1),
      responded(1),
      result(1, "call_1_1"),
      started(2),
      responded(2),
      result(2, "call_2_1"),
      responded(3),
      finished,
    );
    expect(historyProblems(events)).toEqual([]);
  });

  it("finds a step logged twice, as a stale attempt's late append would leave it", () => {
    const events = log(queued, started(1), responded(1), started(2), responded(1), finished);
    expect(historyProblems(events)).toEqual(["step 1 responded twice"]);
  });

  it("finds a tool call with two results", () => {
    const events = log(queued, started(1), result(1, "c"), result(1, "c"));
    expect(historyProblems(events)).toEqual(["call 1/c has two results"]);
  });

  it("finds events after the run settled and gaps in the numbering", () => {
    const events = log(queued, started(1), finished, { ...responded(2), seq: 5 });
    expect(historyProblems(events)).toEqual([
      "event 4 has seq 5",
      "model-responded at seq 5 after the run settled at seq 3",
    ]);
  });
});
