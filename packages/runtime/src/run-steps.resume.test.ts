/**
 * Resuming: a run continued from a log cut anywhere redoes neither a model
 * response nor a tool result already in that log.
 */
import type { NewEvent, RunEvent, Script } from "@errand/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./agent.js";
import { createMemorySink } from "./memory-sink.js";
import { runSteps } from "./run-steps.js";
import { scriptedModel } from "./scripted-model.js";
import { play } from "./test-support/play.js";
import { recordingModel, recordingSink, typesOf } from "./test-support/runs.js";
import { defineTool } from "./tool.js";

const Tally = z.object({ labels: z.array(z.string()) });

const script: Script = [
  {
    call: [
      { tool: "count", args: { label: "a" } },
      { tool: "count", args: { label: "b" } },
    ],
  },
  { call: [{ tool: "structured_output", args: { labels: ["a", "b"] } }] },
];

/** An agent whose `count` tool remembers every label it was called with. */
function tallyAgent() {
  const counted: string[] = [];
  const count = defineTool({
    name: "count",
    description: "Counts a label.",
    parameters: z.object({ label: z.string() }),
    handler: ({ label }) => {
      counted.push(label);
      return { label };
    },
  });
  const agent = defineAgent({
    name: "tally",
    instructions: "Count the labels, then record them.",
    model: scriptedModel(),
    tools: [count],
    outputSchema: Tally,
    script,
    maxSteps: 4,
  });
  return { agent, counted };
}

function asNew(events: readonly RunEvent[]): NewEvent[] {
  return events.map(({ type, at, data }) => ({ type, at, data }) as NewEvent);
}

/**
 * Copies the first `keep` events of a finished run into a fresh sink, adds the
 * new attempt's `run-started` (what the engine writes) and resumes with a new
 * model and a fresh tool counter.
 */
async function resumeFrom(full: readonly RunEvent[], keep: number) {
  const runId = full[0]!.runId;
  const sink = createMemorySink();
  await sink.append(runId, 0, asNew(full.slice(0, keep)));
  await sink.append(runId, keep, [
    { type: "run-started", at: new Date().toISOString(), data: { attempt: 2, workerId: "w2" } },
  ]);
  const { agent, counted } = tallyAgent();
  const model = recordingModel(scriptedModel());
  const recording = recordingSink(sink);
  const state = await runSteps({
    agent,
    state: sink.state(runId),
    model,
    sink: recording,
    signal: new AbortController().signal,
  });
  return { state, counted, requests: model.requests, appends: recording.appends, sink };
}

describe("resuming a run from its log", () => {
  it("plays through uninterrupted as the reference", async () => {
    const { agent, counted } = tallyAgent();
    const run = await play(agent);
    expect(counted).toEqual(["a", "b"]);
    expect(run.requests.map((r) => r.step)).toEqual([1, 2]);
    expect(run.result).toMatchObject({ status: "succeeded", output: { labels: ["a", "b"] } });
  });

  it("after a cut following a tool result, runs only the calls left and does not ask for that step again", async () => {
    const { agent } = tallyAgent();
    const reference = await play(agent);
    const log = reference.sink.events(reference.runId);
    const firstResult = log.findIndex((e) => e.type === "tool-result");
    expect(typesOf(log.slice(0, firstResult + 1))).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "tool-result",
    ]);

    const resumed = await resumeFrom(log, firstResult + 1);

    expect(resumed.counted).toEqual(["b"]);
    expect(resumed.requests.map((r) => r.step)).toEqual([2]);
    expect(resumed.appends.map(typesOf)).toEqual([
      ["tool-called", "tool-result"],
      ["model-responded", "output-recorded", "finished"],
    ]);
    expect(resumed.requests[0]?.messages.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", callId: "call_1_1", name: "count", content: '{"label":"a"}' },
      { role: "tool", callId: "call_1_2", name: "count", content: '{"label":"b"}' },
    ]);
    expect(resumed.state.status).toBe("succeeded");
    expect(resumed.state.output?.value).toEqual({ labels: ["a", "b"] });
    expect(resumed.state.attempts).toBe(2);
  });

  it("logs a step's model-responded before its tools run; cut there, runs the tools and never asks for that step again", async () => {
    const { agent } = tallyAgent();
    const reference = await play(agent);
    expect(reference.appends.map(typesOf)).toEqual([
      ["model-responded"],
      ["tool-called", "tool-result", "tool-called", "tool-result"],
      ["model-responded", "output-recorded", "finished"],
    ]);
    const log = reference.sink.events(reference.runId);
    const stepOneResponded = log.findIndex((e) => e.type === "model-responded");

    const resumed = await resumeFrom(log, stepOneResponded + 1);

    expect(resumed.counted).toEqual(["a", "b"]);
    expect(resumed.requests.map((r) => r.step)).toEqual([2]);
    expect(resumed.appends.map(typesOf)).toEqual([
      ["tool-called", "tool-result", "tool-called", "tool-result"],
      ["model-responded", "output-recorded", "finished"],
    ]);
    expect(resumed.state.output?.value).toEqual({ labels: ["a", "b"] });
    expect(resumed.state.attempts).toBe(2);
  });

  it("after a cut following a whole step, calls no tool and asks only for the next step", async () => {
    const { agent } = tallyAgent();
    const reference = await play(agent);
    const log = reference.sink.events(reference.runId);
    const stepOneEnd = log.findIndex((e) => e.type === "model-responded" && e.data.step === 2);
    const resumed = await resumeFrom(log, stepOneEnd);
    expect(resumed.counted).toEqual([]);
    expect(resumed.requests.map((r) => r.step)).toEqual([2]);
    expect(resumed.state.output?.value).toEqual({ labels: ["a", "b"] });
  });

  it("after a cut between output-recorded and finished, only finishes", async () => {
    const { agent } = tallyAgent();
    const reference = await play(agent);
    const log = reference.sink.events(reference.runId);
    const resumed = await resumeFrom(log, log.length - 1);
    expect(resumed.requests).toHaveLength(0);
    expect(resumed.counted).toEqual([]);
    expect(resumed.appends.map(typesOf)).toEqual([["finished"]]);
    expect(resumed.state.status).toBe("succeeded");
  });

  it("runs again a tool whose call was logged without a result (at least once)", async () => {
    const { agent } = tallyAgent();
    const reference = await play(agent);
    const log = reference.sink.events(reference.runId);
    const secondCall = log.findIndex(
      (e) => e.type === "tool-called" && e.data.callId === "call_1_2",
    );
    const resumed = await resumeFrom(log, secondCall + 1);
    expect(resumed.counted).toEqual(["b"]);
    expect(resumed.requests.map((r) => r.step)).toEqual([2]);
    expect(resumed.state.status).toBe("succeeded");
  });
});
