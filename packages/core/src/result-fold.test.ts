/**
 * The fold kept for a result: over generated logs, delivered once or twice,
 * whole or cut short, it settles to the result of the whole fold, and its
 * state holds none of the steps' calls, text or items.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "./events.js";
import { foldRun, initialRunState } from "./fold.js";
import { applyResultEvent } from "./result-fold.js";
import { settleRun } from "./run-result.js";
import { call, runLog } from "./test-support/log-builder.js";
import { generatedRun } from "./test-support/run-log-arbitrary.js";

function foldForResult(events: readonly RunEvent[], runId: string) {
  return events.reduce(applyResultEvent, initialRunState(runId));
}

describe("applyResultEvent", () => {
  it("settles every generated log, and each of its prefixes, to the whole fold's result", () => {
    fc.assert(
      fc.property(generatedRun, ({ events, runId }) => {
        for (let length = 0; length <= events.length; length++) {
          const prefix = events.slice(0, length);
          const lean = foldForResult(prefix, runId);
          const whole = foldRun(prefix, runId);

          expect(settleRun(lean)).toStrictEqual(settleRun(whole));
          expect(lean.seq).toBe(whole.seq);
          expect(lean.status).toBe(whole.status);
        }
      }),
    );
  });

  it("skips a repeated event as the whole fold does", () => {
    fc.assert(
      fc.property(generatedRun, fc.nat(), ({ events, runId }, pick) => {
        const at = pick % events.length;
        const delivered = [...events.slice(0, at + 1), events[at]!, ...events.slice(at + 1)];

        expect(settleRun(foldForResult(delivered, runId))).toStrictEqual(
          settleRun(foldRun(events, runId)),
        );
      }),
    );
  });

  it("keeps each step's number, usage and cost, and none of its calls, text or items", () => {
    const search = call("call_1", "search", { q: "x".repeat(1_000) });
    const record = call("call_2", "structured_output", { answer: 42 });
    const log = runLog().queuedWithSchema({ type: "object" }).started();
    log.add("model-responded", {
      step: 1,
      text: "thinking",
      calls: [search],
      usage: { inputTokens: 10, outputTokens: 5 },
      finish: "tool_calls",
      costUsd: 0.25,
    });
    const events = log
      .toolRan(1, search, { rows: ["y".repeat(1_000)] })
      .modelResponded(2, { calls: [record] })
      .toolCalled(2, record)
      .outputRecorded(2, "call_2", { answer: 42 })
      .modelResponded(3, { text: "done" })
      .finished("done")
      .build();

    const lean = foldForResult(events, log.runId);

    expect(lean.steps.map(({ step, calls, costUsd }) => ({ step, calls, costUsd }))).toEqual([
      { step: 1, calls: [], costUsd: 0.25 },
      { step: 2, calls: [], costUsd: undefined },
      { step: 3, calls: [], costUsd: undefined },
    ]);
    expect(JSON.stringify(lean.steps)).not.toMatch(/xxxx|yyyy|thinking/);
    expect(settleRun(lean)).toStrictEqual(settleRun(foldRun(events, log.runId)));
    expect(settleRun(lean)).toMatchObject({
      status: "succeeded",
      output: { answer: 42 },
      steps: 3,
    });
  });
});
