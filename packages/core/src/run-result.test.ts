import { describe, expect, it } from "vitest";
import { foldRun } from "./fold.js";
import { RunResult, settleRun } from "./run-result.js";
import { call, runLog } from "./test-support/log-builder.js";

describe("settleRun", () => {
  it("is undefined until the run settles", () => {
    const log = runLog().queued().started().modelResponded(1).cancelRequested();

    for (let length = 0; length <= log.nextSeq - 1; length++) {
      expect(settleRun(foldRun(log.build().slice(0, length), log.runId))).toBeUndefined();
    }
  });

  it("gives the whole canonical shape of a settled child run", () => {
    const log = runLog("01JCHILD00000000000000000A")
      .queued({
        agent: "summariser",
        parentRunId: "01JPARENT0000000000000000A",
        rootRunId: "01JROOT00000000000000000AA",
        depth: 2,
      })
      .started(1, "worker-a")
      .modelResponded(1, {
        calls: [call("c1", "search")],
        usage: { inputTokens: 40, outputTokens: 2 },
      })
      .toolRan(1, call("c1", "search"), [])
      .started(2, "worker-b")
      .modelResponded(2, { text: "Nothing found.", usage: { inputTokens: 60, outputTokens: 4 } })
      .finished("Nothing found.");

    const result = settleRun(foldRun(log.build()));

    expect(result).toStrictEqual({
      runId: "01JCHILD00000000000000000A",
      agent: "summariser",
      status: "succeeded",
      text: "Nothing found.",
      parentRunId: "01JPARENT0000000000000000A",
      rootRunId: "01JROOT00000000000000000AA",
      attempts: 2,
      steps: 2,
      usage: { inputTokens: 100, outputTokens: 6 },
      createdAt: log.timeOf(1),
      startedAt: log.timeOf(2),
      settledAt: log.timeOf(8),
    });
  });

  it("is its own root and has no parent when fired top-level", () => {
    const result = settleRun(foldRun(runLog().queued().started().finished().build()));

    expect(result?.rootRunId).toBe(result?.runId);
    expect(result).not.toHaveProperty("parentRunId");
  });

  it("validates against the RunResult schema for every settled status", () => {
    const settled = [
      runLog().queued().started().finished("ok"),
      runLog().queuedWithSchema().started().finished("no output"),
      runLog().queued().started().failed("timeout"),
      runLog().queued().cancelled({ reason: "stop" }),
    ].map((log) => settleRun(foldRun(log.build())));

    expect(settled.map((result) => result?.status)).toEqual([
      "succeeded",
      "failed",
      "failed",
      "cancelled",
    ]);
    for (const result of settled) expect(RunResult.parse(result)).toStrictEqual(result);
  });

  it("has byte-identical JSON for equal states, however the log was delivered", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [call("c1", "structured_output", { name: "A", age: 1 })] })
      .outputRecorded(1, "c1", { name: "A", age: 1 })
      .finished()
      .build();
    const redelivered = [...log.slice(0, 3), ...log.slice(0, 4), ...log];

    const once = JSON.stringify(settleRun(foldRun(log)));
    const twice = JSON.stringify(settleRun(foldRun(redelivered)));

    expect(twice).toBe(once);
    expect(JSON.stringify(JSON.parse(once))).toBe(once);
  });

  it("writes the error's fields in one order, even from an event built in another", () => {
    const log = runLog().queued().started().failed("timeout", "took too long", true).build();
    const reordered = log.map((event) =>
      event.type === "failed"
        ? { ...event, data: { retryable: true, message: "took too long", code: "timeout" } }
        : event,
    );

    const json = JSON.stringify(settleRun(foldRun(reordered)));

    expect(json).toBe(JSON.stringify(settleRun(foldRun(log))));
    expect(json).toContain('"error":{"code":"timeout","message":"took too long","retryable":true}');
  });

  it("still settles a log that lacks run-queued, with its creation time at settlement", () => {
    const log = runLog("01JORPHAN00000000000000000").failed("worker_lost");

    expect(settleRun(foldRun(log.build()))).toStrictEqual({
      runId: "01JORPHAN00000000000000000",
      agent: "",
      status: "failed",
      error: { code: "worker_lost", message: "the run failed: worker_lost", retryable: false },
      rootRunId: "01JORPHAN00000000000000000",
      attempts: 0,
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      createdAt: log.timeOf(1),
      settledAt: log.timeOf(1),
    });
  });
});
