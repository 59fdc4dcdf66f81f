/**
 * The fold in place (docs/architecture/events.md#the-fold-in-place): it
 * gives the state `applyEvent` gives, and its cost does not grow with the
 * run — an event changes the steps array it is given, never copies it, so
 * folding a log stays linear. Checked by identity, not by time: a fold
 * that copied the steps once an event (quadratic over a run) fails here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "./events.js";
import {
  applyEvent,
  applyEventInPlace,
  copyForInPlaceFold,
  foldRun,
  initialRunState,
} from "./fold.js";
import { applyResultEvent, applyResultEventInPlace } from "./result-fold.js";
import { call, type RunLogBuilder, runLog } from "./test-support/log-builder.js";
import { generatedRun } from "./test-support/run-log-arbitrary.js";

/** Steps in the long run below: enough that a copy of its steps a step would be millions of slots. */
const STEPS = 3_000;

/** A run of `steps` steps, each one call run to its result, still open. */
function longRun(steps: number): RunLogBuilder {
  const log = runLog()
    .queued({ limits: { maxSteps: steps + 10 } })
    .started();
  for (let step = 1; step <= steps; step++) {
    const spawn = call(`call_${step}`, "spawn", { child: step });
    log.modelResponded(step, { calls: [spawn] }).toolRan(step, spawn, { runId: `child-${step}` });
  }
  return log;
}

/** The events `log` gains from `add`, folded after what it holds. */
function eventsAdded(log: RunLogBuilder, add: (log: RunLogBuilder) => void): RunEvent[] {
  const before = log.nextSeq;
  add(log);
  return log.build().slice(before - 1);
}

describe("applyEventInPlace", () => {
  it("folds every generated log, delivered once, to the state applyEvent folds it to", () => {
    fc.assert(
      fc.property(generatedRun, ({ events, runId }) => {
        const inPlace = events.reduce(applyEventInPlace, initialRunState(runId));
        const copied = events.reduce(applyEvent, initialRunState(runId));

        expect(inPlace).toEqual(copied);
        expect(foldRun(events, runId)).toEqual(copied);
        expect(events.reduce(applyResultEventInPlace, initialRunState(runId))).toEqual(
          events.reduce(applyResultEvent, initialRunState(runId)),
        );
      }),
    );
  });

  it("adds the next step of a long run to its steps array, keeping every step before it", () => {
    const log = longRun(STEPS);
    const state = foldRun(log.build());
    const steps = state.steps;
    const before = [...steps];
    const next = call("call_next", "spawn", { child: STEPS + 1 });

    const added = eventsAdded(log, (l) =>
      l.modelResponded(STEPS + 1, { calls: [next] }).toolRan(STEPS + 1, next, { runId: "x" }),
    );
    for (const event of added) {
      expect(applyEventInPlace(state, event)).toBe(state);
      // The same array, grown or changed at its end: no new array of the run's length.
      expect(state.steps).toBe(steps);
    }

    expect(steps).toHaveLength(STEPS + 1);
    for (let index = 0; index < STEPS; index++) expect(steps[index]).toBe(before[index]);
    expect(steps[STEPS]?.calls[0]?.outcome).toEqual({
      kind: "result",
      ok: true,
      truncated: false,
      result: { runId: "x" },
    });
  });

  it("replaces a changed step by a new object, leaving the step it replaces as it was", () => {
    const log = runLog().queued().started();
    const search = call("c1", "search", { q: "moon" });
    const state = foldRun(log.modelResponded(1, { calls: [search] }).build());
    const [opened] = state.steps;

    for (const event of eventsAdded(log, (l) => l.toolRan(1, search, { hits: 3 }))) {
      applyEventInPlace(state, event);
    }

    expect(state.steps[0]).not.toBe(opened);
    expect(opened?.calls[0]).toEqual({ ...search, called: false });
    expect(state.steps[0]?.calls[0]?.outcome).toMatchObject({ kind: "result", ok: true });
  });

  it("moves a step answered again to the end, as the copying fold does", () => {
    const log = runLog()
      .queued()
      .started()
      .modelResponded(1)
      .modelResponded(2)
      .modelResponded(1, { text: "again" });
    const events = log.build();

    const state = foldRun(events);

    expect(state.steps.map((s) => [s.step, s.text])).toEqual([
      [2, undefined],
      [1, "again"],
    ]);
    expect(state).toEqual(events.reduce(applyEvent, initialRunState(events[0]!.runId)));
  });
});

describe("applyEvent on a long run", () => {
  it("shares the steps array with the state it came from for an event that changes no step", () => {
    const log = longRun(STEPS);
    const state = foldRun(log.build());
    const [cancel] = eventsAdded(log, (l) => l.cancelRequested({ reason: "enough" }));

    const next = applyEvent(state, cancel!);

    expect(next).not.toBe(state);
    expect(next.cancelRequested).toEqual({ reason: "enough" });
    expect(next.steps).toBe(state.steps);
    expect(next.waitpoints).toBe(state.waitpoints);
  });

  it("copies only the steps array for an event that changes a step: every step object is shared", () => {
    const log = longRun(STEPS);
    const state = foldRun(log.build());
    const [responded] = eventsAdded(log, (l) => l.modelResponded(STEPS + 1, { text: "done" }));

    const next = applyEvent(state, responded!);

    expect(next.steps).not.toBe(state.steps);
    expect(state.steps).toHaveLength(STEPS);
    expect(next.steps).toHaveLength(STEPS + 1);
    for (let index = 0; index < STEPS; index++) expect(next.steps[index]).toBe(state.steps[index]);
  });
});

describe("copyForInPlaceFold", () => {
  it("gives a state an in-place fold may grow while the state it copies stays as it was", () => {
    const log = longRun(2);
    const original = foldRun(log.build());
    const copy = copyForInPlaceFold(original);

    for (const event of eventsAdded(log, (l) =>
      l.modelResponded(3, { text: "done" }).finished("done"),
    )) {
      applyEventInPlace(copy, event);
    }

    expect(original.steps).toHaveLength(2);
    expect(original.status).toBe("running");
    expect(copy.steps).toHaveLength(3);
    expect(copy.status).toBe("succeeded");
    expect(copy.steps[0]).toBe(original.steps[0]);
  });
});
