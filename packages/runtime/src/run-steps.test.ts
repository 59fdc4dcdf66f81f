import { isErrandError, type NewEvent, type Script } from "@errand/core";
import { isMarkedChecked } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryBlobStore } from "./blobs.js";
import { FatalToolError } from "./errors.js";
import { createMemorySink } from "./memory-sink.js";
import { runSteps } from "./run-steps.js";
import { addTool, scriptedAgent } from "./test-support/agents.js";
import { play } from "./test-support/play.js";
import { startRun, typesOf } from "./test-support/runs.js";
import { defineTool, type ToolContext } from "./tool.js";

describe("runSteps: tools", () => {
  it("runs a tool with parsed arguments and its context, its model-responded logged before its tools run", async () => {
    const seen: Pick<ToolContext, "runId" | "step" | "callId">[] = [];
    const probe = defineTool({
      name: "probe",
      description: "Reports its context.",
      parameters: z.object({ n: z.number() }),
      handler: ({ n }, ctx) => {
        seen.push({ runId: ctx.runId, step: ctx.step, callId: ctx.callId });
        return n * 2;
      },
    });
    const script: Script = [
      {
        call: [
          { tool: "add", args: { a: 2, b: 3 } },
          { tool: "probe", args: { n: 4 } },
        ],
      },
      { say: "5 and 8." },
    ];
    const run = await play(scriptedAgent(script, { tools: [addTool, probe] }));
    expect(run.events).toMatchObject([
      { type: "model-responded", data: { step: 1 } },
      {
        type: "tool-called",
        data: { step: 1, callId: "call_1_1", name: "add", args: { a: 2, b: 3 } },
      },
      {
        type: "tool-result",
        data: {
          step: 1,
          callId: "call_1_1",
          ok: true,
          result: { sum: 5 },
          truncated: false,
          bytes: 9,
        },
      },
      { type: "tool-called", data: { callId: "call_1_2", name: "probe" } },
      { type: "tool-result", data: { callId: "call_1_2", ok: true, result: 8, bytes: 1 } },
      { type: "model-responded", data: { step: 2, text: "5 and 8." } },
      { type: "finished", data: { text: "5 and 8." } },
    ]);
    expect(run.appends.map(typesOf)).toEqual([
      ["model-responded"],
      ["tool-called", "tool-result", "tool-called", "tool-result"],
      ["model-responded", "finished"],
    ]);
    expect(seen).toEqual([{ runId: run.runId, step: 1, callId: "call_1_2" }]);
    expect(run.requests[1]?.messages.slice(2)).toEqual([
      {
        role: "assistant",
        calls: [
          { callId: "call_1_1", name: "add", args: { a: 2, b: 3 } },
          { callId: "call_1_2", name: "probe", args: { n: 4 } },
        ],
      },
      { role: "tool", callId: "call_1_1", name: "add", content: '{"sum":5}' },
      { role: "tool", callId: "call_1_2", name: "probe", content: "8" },
    ]);
    expect(run.result).toMatchObject({ status: "succeeded", text: "5 and 8.", steps: 2 });
  });

  it("gives the model the error of a tool that throws, and goes on", async () => {
    const flaky = defineTool({
      name: "flaky",
      description: "Fails.",
      parameters: z.object({}),
      handler: () => {
        throw new Error("disk on fire");
      },
    });
    const run = await play(
      scriptedAgent([{ call: [{ tool: "flaky", args: {} }] }, { say: "Sorry." }], {
        tools: [flaky],
      }),
    );
    expect(run.events[2]).toMatchObject({
      type: "tool-result",
      data: { ok: false, error: "disk on fire", truncated: false },
    });
    expect(run.requests[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "Error: disk on fire",
    });
    expect(run.result).toMatchObject({ status: "succeeded", text: "Sorry." });
  });

  it("fails the run with tool_error when a tool throws FatalToolError, running nothing after it", async () => {
    const fatal = defineTool({
      name: "fatal",
      description: "Ends everything.",
      parameters: z.object({}),
      handler: () => {
        throw new FatalToolError("the account is closed");
      },
    });
    const script: Script = [
      {
        call: [
          { tool: "fatal", args: {} },
          { tool: "add", args: { a: 1, b: 1 } },
        ],
      },
    ];
    const run = await play(scriptedAgent(script, { tools: [fatal, addTool] }));
    expect(typesOf(run.events)).toEqual(["model-responded", "tool-called", "failed"]);
    expect(run.events[2]?.data).toEqual({
      code: "tool_error",
      message: "the account is closed",
      retryable: false,
    });
    expect(run.appends.map(typesOf)).toEqual([["model-responded"], ["tool-called", "failed"]]);
  });

  it("refuses arguments that do not match a tool's parameters without running it", async () => {
    const script: Script = [{ call: [{ tool: "add", args: { a: 1 } }] }, { say: "ok" }];
    const run = await play(scriptedAgent(script, { tools: [addTool] }));
    expect(run.events[1]).toEqual(
      expect.objectContaining({
        type: "refused",
        data: {
          step: 1,
          callId: "call_1_1",
          name: "add",
          reason: "invalid-arguments",
          issues: ["b: expected number, received undefined"],
          message:
            "Error: invalid arguments for add. Fix these issues and call add again:\n- b: expected number, received undefined",
        },
      }),
    );
    expect(typesOf(run.events)).not.toContain("tool-called");
  });
});

describe("runSteps: large tool results", () => {
  it("stores a large result as a blob of the run; the model sees a preview and the reference", async () => {
    const page = "tide ".repeat(10_000);
    const fetchPage = defineTool({
      name: "fetch_page",
      description: "Fetches a page.",
      parameters: z.object({}),
      handler: () => page,
    });
    const blobs = createMemoryBlobStore();
    const script: Script = [{ call: [{ tool: "fetch_page", args: {} }] }, { say: "Read it." }];
    const run = await play(scriptedAgent(script, { tools: [fetchPage] }), { blobs });
    const uri = `resource://runs/${run.runId}/blobs/0`;
    expect(run.events[2]).toMatchObject({
      type: "tool-result",
      data: {
        ok: true,
        truncated: true,
        bytes: page.length,
        ref: { ref: uri, sizeBytes: page.length },
      },
    });
    expect((await blobs.get(uri))?.value).toBe(page);
    const seen = run.requests[1]?.messages.at(-1);
    expect(seen).toMatchObject({ role: "tool", callId: "call_1_1" });
    expect(seen?.role === "tool" && seen.content.endsWith(`is stored as ${uri}]`)).toBe(true);
  });

  it("lets a tool store a value itself through ctx.putBlob", async () => {
    const archive = defineTool({
      name: "archive",
      description: "Archives a report.",
      parameters: z.object({ report: z.string() }),
      handler: async ({ report }, ctx) => ({ stored: await ctx.putBlob(report, "text/markdown") }),
    });
    const blobs = createMemoryBlobStore();
    const script: Script = [
      { call: [{ tool: "archive", args: { report: "# Tides" } }] },
      { say: "ok" },
    ];
    const run = await play(scriptedAgent(script, { tools: [archive] }), { blobs });
    const result = run.state.steps[0]?.calls[0]?.outcome;
    const stored = (result?.kind === "result" ? result.result : undefined) as {
      stored: { ref: string };
    };
    expect(stored.stored.ref).toBe(`resource://runs/${run.runId}/blobs/0`);
    expect(await blobs.get(stored.stored.ref)).toEqual({
      value: "# Tides",
      contentType: "text/markdown",
    });
  });
});

describe("runSteps: the log", () => {
  it("propagates seq_conflict when another writer moved the log on, writing nothing", async () => {
    const agent = scriptedAgent([{ say: "hi" }]);
    const sink = createMemorySink();
    const stale = await startRun(sink, agent);
    const other: NewEvent = { type: "cancel-requested", at: new Date().toISOString(), data: {} };
    await sink.append(stale.runId, stale.seq, [other]);
    const error = await runSteps({
      agent,
      state: stale,
      sink,
      signal: new AbortController().signal,
    })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(isErrandError(error, "seq_conflict")).toBe(true);
    expect(typesOf(sink.events(stale.runId))).toEqual([
      "run-queued",
      "run-started",
      "cancel-requested",
    ]);
  });

  it("returns a settled run as it is", async () => {
    const run = await play(scriptedAgent([{ say: "done" }]));
    const again = await runSteps({
      agent: scriptedAgent([]),
      state: run.state,
      sink: run.sink,
      signal: new AbortController().signal,
    });
    expect(again).toBe(run.state);
  });

  it("refuses an agent that names its model when no model is given", async () => {
    const agent = scriptedAgent([], { model: "gpt-4o-mini" });
    const sink = createMemorySink();
    const state = await startRun(sink, agent);
    const error = await runSteps({ agent, state, sink, signal: new AbortController().signal })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(isErrandError(error, "invalid_spec")).toBe(true);
  });
});

describe("runSteps: events marked checked", () => {
  it("marks the output-recorded and finished it builds from validated data, never a response", async () => {
    const outputSchema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const script: Script = [{ call: [{ tool: "structured_output", args: { answer: "ok" } }] }];
    const run = await play(scriptedAgent(script), { outputSchema });
    const appended = run.appends.flat();
    expect(typesOf(appended)).toEqual(["model-responded", "output-recorded", "finished"]);
    expect(appended.map(isMarkedChecked)).toEqual([false, true, true]);
  });
});
