/**
 * Properties of the fold over generated, plausible run logs: redelivery,
 * prefixes, JSON stability of results and indifference to what follows the
 * terminal event.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isErrandError } from "./errors.js";
import { isTerminalEventType, RunEvent } from "./events.js";
import { foldRun, isSettled } from "./fold.js";
import { settleRun } from "./run-result.js";
import { generatedRun } from "./test-support/run-log-arbitrary.js";

/** Where to insert copies: each pair picks an event and a place after the original. */
const redeliveries = fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 });

/** Inserts a copy of chosen events anywhere after their original, as at-least-once delivery does. */
function redeliver(events: readonly RunEvent[], picks: [number, number][]): RunEvent[] {
  const delivered = [...events];
  if (events.length === 0) return delivered;
  for (const [pick, place] of picks) {
    const original = events[pick % events.length]!;
    const at = delivered.indexOf(original);
    const position = at + 1 + (place % (delivered.length - at));
    delivered.splice(position, 0, structuredClone(original));
  }
  return delivered;
}

/** The index of the first terminal event, or -1. */
function firstTerminal(events: readonly RunEvent[]): number {
  return events.findIndex((event) => isTerminalEventType(event.type));
}

describe("the generated logs themselves", () => {
  it("are valid events with seq 1, 2, 3, … that start with run-queued and run-started", () => {
    fc.assert(
      fc.property(generatedRun, ({ events }) => {
        for (const event of events) expect(RunEvent.parse(event)).toEqual(event);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        expect(events.slice(0, 2).map((e) => e.type)).toEqual(["run-queued", "run-started"]);
      }),
    );
  });
});

describe("foldRun properties", () => {
  it("(a) folds a log with events delivered twice to the same state as the clean log", () => {
    fc.assert(
      fc.property(generatedRun, redeliveries, ({ events }, picks) => {
        expect(foldRun(redeliver(events, picks))).toEqual(foldRun(events));
      }),
    );
  });

  it("(b) folds every prefix to a consistent partial state", () => {
    fc.assert(
      fc.property(generatedRun, ({ events, runId }) => {
        for (let length = 0; length <= events.length; length++) {
          const prefix = events.slice(0, length);
          const state = foldRun(prefix, runId);
          const settled = firstTerminal(prefix) >= 0;

          expect(state.seq).toBe(length);
          expect(isSettled(state)).toBe(settled);
          expect(settleRun(state) !== undefined).toBe(settled);
          if (!settled) {
            const started = prefix.some((e) => e.type === "run-started");
            const expected = length === 0 ? "pending" : started ? "running" : "queued";
            expect(state.status).toBe(expected);
          }
        }
      }),
    );
  });

  it("(b') counts usage, steps and attempts over the events before the terminal one", () => {
    fc.assert(
      fc.property(generatedRun, ({ events }) => {
        const end = firstTerminal(events);
        const counted = end < 0 ? events : events.slice(0, end);
        const usage = { inputTokens: 0, outputTokens: 0 };
        let steps = 0;
        let attempts = 0;
        for (const event of counted) {
          if (event.type === "model-responded") {
            usage.inputTokens += event.data.usage.inputTokens;
            usage.outputTokens += event.data.usage.outputTokens;
            steps++;
          }
          if (event.type === "run-started") attempts = Math.max(attempts, event.data.attempt);
        }

        const state = foldRun(events);

        expect(state.usage).toEqual(usage);
        expect(state.steps).toHaveLength(steps);
        expect(state.attempts).toBe(attempts);
      }),
    );
  });

  it("(c) settles to a JSON-stable RunResult", () => {
    fc.assert(
      fc.property(generatedRun, ({ events }) => {
        const result = settleRun(foldRun(events));
        const json = JSON.stringify(result);

        expect(JSON.stringify(settleRun(foldRun(events)))).toBe(json);
        if (result !== undefined) expect(JSON.stringify(JSON.parse(json))).toBe(json);
      }),
    );
  });

  it("(d) never lets an event after the first terminal one change the result", () => {
    fc.assert(
      fc.property(generatedRun, ({ events }) => {
        const end = firstTerminal(events);
        fc.pre(end >= 0);
        const atTerminal = settleRun(foldRun(events.slice(0, end + 1)));

        for (let length = end + 2; length <= events.length; length++) {
          expect(settleRun(foldRun(events.slice(0, length)))).toEqual(atTerminal);
        }
      }),
    );
  });

  it("(e) settles by the rules of docs/architecture/events.md for whichever terminal event comes first", () => {
    fc.assert(
      fc.property(generatedRun, ({ events, hasSchema }) => {
        const end = firstTerminal(events);
        fc.pre(end >= 0);
        const terminal = events[end]!;
        const recorded = events.slice(0, end).some((e) => e.type === "output-recorded");

        const result = settleRun(foldRun(events));

        if (terminal.type === "cancelled") expect(result?.status).toBe("cancelled");
        if (terminal.type === "failed") expect(result?.error).toEqual(terminal.data);
        if (terminal.type === "finished") {
          const succeeded = !hasSchema || recorded;
          expect(result?.status).toBe(succeeded ? "succeeded" : "failed");
          expect(result?.error?.code).toBe(succeeded ? undefined : "no_structured_output");
          expect(result?.text).toBe(terminal.data.text);
          expect("output" in (result ?? {})).toBe(recorded);
        }
      }),
    );
  });

  it("(f) refuses a log with any event missing before its last one (seq_gap)", () => {
    fc.assert(
      fc.property(generatedRun, fc.nat(), ({ events }, pick) => {
        const withGap = events.filter((_, i) => i !== pick % (events.length - 1));
        let thrown: unknown;
        try {
          foldRun(withGap);
        } catch (error) {
          thrown = error;
        }

        expect(isErrandError(thrown, "seq_gap")).toBe(true);
      }),
    );
  });
});
