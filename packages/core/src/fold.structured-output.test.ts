/**
 * Every outcome of the structured-output contract (docs/architecture/structured-output.md) the fold must
 * express, and the per-call outcomes the runtime rebuilds its transcript from.
 */
import { describe, expect, it } from "vitest";
import type { RunEvent } from "./events.js";
import { foldRun, NO_STRUCTURED_OUTPUT_MESSAGE } from "./fold.js";
import { settleRun } from "./run-result.js";
import { call, runLog } from "./test-support/log-builder.js";

function settle(events: readonly RunEvent[]) {
  return settleRun(foldRun(events));
}

const ALREADY_RECORDED = (tool: string) =>
  `Error: structured output already recorded: the run is complete, so ${tool} is not executed.`;

const alice = { name: "Alice", age: 36 };

describe("a run with a schema", () => {
  it("records its output at once and succeeds with it", () => {
    const record = call("c1", "structured_output", alice);
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [record] })
      .outputRecorded(1, "c1", alice)
      .finished();

    const state = foldRun(log.build());

    expect(state.output).toEqual({ value: alice, step: 1, callId: "c1" });
    expect(settleRun(state)).toMatchObject({ status: "succeeded", output: alice, steps: 1 });
    expect(settleRun(state)).not.toHaveProperty("error");
  });

  it("is refused invalid arguments, corrects itself and succeeds with the corrected output", () => {
    const wrong = call("c1", "structured_output", { name: "Alice" });
    const right = call("c2", "structured_output", alice);
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [wrong] })
      .refused({
        step: 1,
        callId: "c1",
        name: "structured_output",
        reason: "invalid-arguments",
        message: "Error: invalid arguments: age: required",
        issues: ["age: required"],
      })
      .modelResponded(2, { calls: [right] })
      .outputRecorded(2, "c2", alice)
      .finished();

    const state = foldRun(log.build());

    expect(settleRun(state)).toMatchObject({ status: "succeeded", output: alice, steps: 2 });
    expect(state.steps[0]?.calls[0]?.outcome).toEqual({
      kind: "refused",
      reason: "invalid-arguments",
      message: "Error: invalid arguments: age: required",
    });
    expect(state.steps[1]?.calls[0]?.outcome).toEqual({ kind: "recorded" });
  });

  it("refuses a call after the recorded one; the output and the success stand", () => {
    const record = call("c1", "structured_output", alice);
    const late = call("c2", "search", { q: "more" });
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [record, late] })
      .outputRecorded(1, "c1", alice)
      .refused({
        step: 1,
        callId: "c2",
        name: "search",
        reason: "output-already-recorded",
        message: ALREADY_RECORDED("search"),
      })
      .finished();

    const state = foldRun(log.build());

    expect(settleRun(state)).toMatchObject({ status: "succeeded", output: alice });
    expect(state.steps[0]?.calls.map((c) => c.outcome?.kind)).toEqual(["recorded", "refused"]);
  });

  it("never lets a second output-recorded replace the first", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, {
        calls: [call("c1", "structured_output", alice), call("c2", "set_output", { name: "Bob" })],
      })
      .outputRecorded(1, "c1", alice)
      .outputRecorded(1, "c2", { name: "Bob", age: 1 })
      .finished();

    const state = foldRun(log.build());

    expect(state.output).toEqual({ value: alice, step: 1, callId: "c1" });
    expect(state.steps[0]?.calls[1]?.outcome).toBeUndefined();
  });

  it("still runs the calls made before the recorded one in the same response", () => {
    const search = call("c1", "search", { q: "Alice" });
    const record = call("c2", "structured_output", alice);
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [search, record] })
      .toolRan(1, search, { hits: 1 })
      .outputRecorded(1, "c2", alice)
      .finished();

    const state = foldRun(log.build());

    expect(state.steps[0]?.calls.map((c) => c.outcome?.kind)).toEqual(["result", "recorded"]);
    expect(settleRun(state)?.output).toEqual(alice);
  });

  it("fails no_structured_output when it finishes without recording, keeping the text", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { text: "Alice is 36." })
      .finished("Alice is 36.");

    const result = settle(log.build());

    expect(result).toMatchObject({
      status: "failed",
      text: "Alice is 36.",
      error: { code: "no_structured_output", message: NO_STRUCTURED_OUTPUT_MESSAGE },
    });
    expect(result?.error?.retryable).toBe(false);
    expect(result).not.toHaveProperty("output");
  });

  it("fails no_structured_output when its only attempts were refused", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [call("c1", "structured_output", { age: "old" })] })
      .refused({
        step: 1,
        callId: "c1",
        reason: "invalid-arguments",
        message: "Error: invalid arguments",
      })
      .modelResponded(2, { text: "I give up." })
      .finished("I give up.");

    expect(settle(log.build())?.error?.code).toBe("no_structured_output");
  });

  it("reads as cancelled, not as missing output, when cancelled while running", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [call("c1", "search")] })
      .cancelRequested({ reason: "user" })
      .cancelled();

    const result = settle(log.build());

    expect(result?.status).toBe("cancelled");
    expect(result?.error?.code).toBe("cancelled");
  });

  it("keeps its own failure code (model_error), not no_structured_output", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .failed("model_error", "the model request failed: 503", true);

    expect(settle(log.build())?.error).toEqual({
      code: "model_error",
      message: "the model request failed: 503",
      retryable: true,
    });
  });

  it("keeps its own failure code even after an output was recorded, and shows no output", () => {
    const log = runLog()
      .queuedWithSchema()
      .started()
      .modelResponded(1, { calls: [call("c1", "structured_output", alice)] })
      .outputRecorded(1, "c1", alice)
      .failed("worker_lost", "the worker died before finishing", true);

    const result = settle(log.build());

    expect(result?.status).toBe("failed");
    expect(result?.error?.code).toBe("worker_lost");
    expect(result).not.toHaveProperty("output");
  });
});

describe("per-call outcomes, for rebuilding the model transcript", () => {
  const search = call("c1", "search", { q: "moon" });
  const fetch = call("c2", "fetch", { url: "https://example.org" });
  const unknown = call("c3", "teleport", {});
  const given = () =>
    runLog()
      .queued()
      .started()
      .modelResponded(1, { text: "Looking.", calls: [search, fetch, unknown] });

  it("lists the step's calls with their arguments, none called yet", () => {
    const step = foldRun(given().build()).steps[0];

    expect(step).toEqual({
      step: 1,
      text: "Looking.",
      finish: "tool_calls",
      usage: { inputTokens: 10, outputTokens: 5 },
      calls: [
        { ...search, called: false },
        { ...fetch, called: false },
        { ...unknown, called: false },
      ],
    });
  });

  it("marks a call in flight (called, no outcome) so a resumed worker knows to run it again", () => {
    const calls = foldRun(given().toolCalled(1, search).build()).steps[0]?.calls;

    expect(calls?.[0]).toEqual({ ...search, called: true });
    expect(calls?.[0]?.outcome).toBeUndefined();
  });

  it("records results, failures and refusals per call", () => {
    const log = given()
      .toolRan(1, search, { hits: ["a", "b"] })
      .toolCalled(1, fetch)
      .toolResult(1, "c2", { ok: false, error: "HTTP 404", truncated: false })
      .refused({
        step: 1,
        callId: "c3",
        name: "teleport",
        reason: "unknown-tool",
        message: "Error: unknown tool teleport",
      });

    const calls = foldRun(log.build()).steps[0]?.calls;

    expect(calls?.map((c) => c.outcome)).toEqual([
      { kind: "result", ok: true, truncated: false, result: { hits: ["a", "b"] } },
      { kind: "result", ok: false, truncated: false, error: "HTTP 404" },
      { kind: "refused", reason: "unknown-tool", message: "Error: unknown tool teleport" },
    ]);
    expect(calls?.map((c) => c.called)).toEqual([true, true, false]);
  });

  it("keeps a truncated result's reference to the full value", () => {
    const ref = {
      ref: "resource://runs/r1/blobs/1",
      contentType: "application/json",
      sizeBytes: 200_000,
      sha256: "a".repeat(64),
    };
    const log = given().toolCalled(1, search).add("tool-result", {
      step: 1,
      callId: "c1",
      ok: true,
      result: "[first 1000 chars]",
      bytes: 200_000,
      truncated: true,
      ref,
    });

    const outcome = foldRun(log.build()).steps[0]?.calls[0]?.outcome;

    expect(outcome).toEqual({
      kind: "result",
      ok: true,
      truncated: true,
      result: "[first 1000 chars]",
      ref,
    });
  });

  it("ignores results, refusals and recordings for calls the model never made", () => {
    const before = foldRun(given().build());

    const after = foldRun(
      given()
        .toolResult(1, "nope", { result: 1 })
        .toolResult(7, "c1", { result: 1 })
        .refused({ step: 1, callId: "nope", reason: "unknown-tool", message: "x" })
        .refused({ reason: "limit-exceeded", message: "before the run" })
        .build(),
    );

    expect(after.steps).toEqual(before.steps);
  });
});
