/**
 * fire → a worker process → the run log: exactly the expected events, in
 * order, for a structured run and a plain one; and `events` reads the same log.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { describe, expect } from "vitest";
import { engineTest } from "../test-support/engine-test.js";
import { AnswerSchema, TEST_AGENTS } from "../test-support/test-agents.js";

const it = engineTest("fire-worker");

it.beforeAll(async ({ fx }) => {
  await fx.spawn("worker-1");
});

function summary(events: RunEvent[]) {
  return events.map((event) => [event.seq, event.type]);
}

async function collect(iterable: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe("fire → worker → log", () => {
  it("logs a structured run's events in order and records its output", async ({ fx }) => {
    const script = [
      { call: [{ tool: "bump", args: {} }] },
      { call: [{ tool: "structured_output", args: { answer: "forty-two" } }] },
    ];
    const { runId } = await fx.errand.fire({
      agent: TEST_AGENTS.structured,
      input: { question: "the answer?", script },
      outputSchema: AnswerSchema,
      metadata: { team: "tests" },
    });
    const events = await fx.waitForEvent(runId);

    expect(summary(events)).toEqual([
      [1, "run-queued"],
      [2, "run-started"],
      [3, "model-responded"],
      [4, "tool-called"],
      [5, "tool-result"],
      [6, "model-responded"],
      [7, "output-recorded"],
      [8, "finished"],
    ]);
    const [queued, started, , called, result, , recorded] = events;
    expect(queued).toMatchObject({
      type: "run-queued",
      data: {
        agent: "structured",
        rootRunId: runId,
        depth: 0,
        metadata: { team: "tests" },
        outputSchema: { type: "object", required: ["answer"], additionalProperties: false },
      },
    });
    expect(started).toMatchObject({ data: { attempt: 1, workerId: "worker-1" } });
    expect(called).toMatchObject({ data: { step: 1, name: "bump" } });
    expect(result).toMatchObject({ data: { step: 1, ok: true, result: { count: 1 } } });
    expect(recorded).toMatchObject({ data: { step: 2, output: { answer: "forty-two" } } });
    expect(settleRun(foldRun(events))).toMatchObject({
      status: "succeeded",
      output: { answer: "forty-two" },
      attempts: 1,
      steps: 2,
    });
    expect(await fx.redis.get(fx.counters.toolRuns(runId))).toBe("1");
  });

  it("logs a plain run's events in order and settles with its text", async ({ fx }) => {
    const script = [{ call: [{ tool: "bump", args: {} }] }, { say: "all done" }];
    const { runId } = await fx.errand.fire({ agent: TEST_AGENTS.plain, input: { script } });
    const events = await fx.waitForEvent(runId);

    expect(summary(events)).toEqual([
      [1, "run-queued"],
      [2, "run-started"],
      [3, "model-responded"],
      [4, "tool-called"],
      [5, "tool-result"],
      [6, "model-responded"],
      [7, "finished"],
    ]);
    expect(events[0]).toMatchObject({ data: { agent: "plain", limits: { maxSteps: 8 } } });
    expect(events[0]?.data).not.toHaveProperty("outputSchema");
    expect(events[5]).toMatchObject({ data: { step: 2, text: "all done", calls: [] } });
    expect(events[6]).toMatchObject({ type: "finished", data: { text: "all done" } });
    expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", text: "all done" });
    expect(await fx.redis.get(fx.counters.modelRequests(runId, 1))).toBe("1");
    expect(await fx.redis.get(fx.counters.modelRequests(runId, 2))).toBe("1");

    const read = await collect(fx.errand.events(runId));
    expect(read).toEqual(events);
    const after = await collect(fx.errand.events(runId, { afterSeq: 5 }));
    expect(summary(after)).toEqual([
      [6, "model-responded"],
      [7, "finished"],
    ]);
  });

  it("refuses events of an unknown run and of a malformed runId", async ({ fx }) => {
    const unknown = "R00000000000000000000000000"; // 27 chars: not even a run id
    await expect(collect(fx.errand.events(unknown))).rejects.toMatchObject({
      code: "invalid_spec",
    });
    const missing = fx.errand.store.newRunId();
    await expect(collect(fx.errand.events(missing, { follow: true }))).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
