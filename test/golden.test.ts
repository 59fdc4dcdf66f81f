/**
 * Old logs must keep folding: every committed golden history is made of valid
 * events and settles to its committed RunResult, folded whole or for its
 * result alone.
 */
import { foldRun, initialRunState, RunEvent, RunResult, settleRun } from "@errand/core";
import { applyResultEvent } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { loadGoldenHistories } from "./golden/histories.mjs";

const histories = loadGoldenHistories();

it("keeps at least the eight founding histories", () => {
  expect(histories.length).toBeGreaterThanOrEqual(8);
});

describe.each(histories)("golden history $name", ({ events, expected }) => {
  it("is a log of valid events of one run with seq 1, 2, 3, …", () => {
    const parsed = events.map((event) => RunEvent.parse(event));

    expect(parsed).toEqual(events);
    expect(parsed.map((event) => event.seq)).toEqual(parsed.map((_, i) => i + 1));
    expect(new Set(parsed.map((event) => event.runId)).size).toBe(1);
  });

  it("has a committed result that is a valid RunResult", () => {
    expect(RunResult.parse(expected)).toStrictEqual(expected);
  });

  it("settles to its committed result", () => {
    const result = settleRun(foldRun(events.map((event) => RunEvent.parse(event))));

    expect(result).toStrictEqual(expected);
  });

  it("settles to its committed result when folded for its result alone (as the collector folds)", () => {
    const parsed = events.map((event) => RunEvent.parse(event));
    const state = parsed.reduce(applyResultEvent, initialRunState(parsed[0]!.runId));

    expect(settleRun(state)).toStrictEqual(expected);
  });
});
