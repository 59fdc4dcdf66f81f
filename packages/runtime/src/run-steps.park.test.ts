/**
 * Parking: a tool that throws a `ParkRequest` takes its run off the worker.
 * The step so far is appended (the parking call's `tool-called` without a
 * result), `runSteps` rejects with the request, and the run resumed from its
 * log runs that call again and goes on.
 */
import { settleRun } from "@errand/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./agent.js";
import { isParkRequest, ParkRequest } from "./errors.js";
import { createMemorySink } from "./memory-sink.js";
import { runSteps } from "./run-steps.js";
import { scriptedModel } from "./scripted-model.js";
import { startRun, typesOf } from "./test-support/runs.js";
import { defineTool } from "./tool.js";

/** A `wait_for` tool that parks until `ready` is set, then answers; and a parent agent using it. */
function waitingAgent() {
  const tool = { ready: false, calls: 0, services: [] as unknown[] };
  const waitFor = defineTool({
    name: "wait_for",
    description: "Waits for the children.",
    parameters: z.object({ runIds: z.array(z.string()) }),
    handler: ({ runIds }, ctx) => {
      tool.calls++;
      tool.services.push(ctx.services.errand);
      if (!tool.ready) throw new ParkRequest("children still running", runIds);
      return { settled: runIds };
    },
  });
  const agent = defineAgent({
    name: "waiter",
    instructions: "Wait for the children, then say done.",
    model: scriptedModel(),
    tools: [waitFor],
    script: [
      { call: [{ tool: "wait_for", args: { runIds: ["c1", "c2"] } }], say: "waiting" },
      { say: "done" },
    ],
  });
  return { agent, tool };
}

describe("a tool that parks its run", () => {
  it("appends the step with the parking call open, rejects with the request, and resumes from the log", async () => {
    const { agent, tool } = waitingAgent();
    const sink = createMemorySink();
    const services = { errand: "the host's client" };
    const started = await startRun(sink, agent);
    const signal = new AbortController().signal;

    const parked = await runSteps({ agent, state: started, sink, signal, services }).catch(
      (error: unknown) => error,
    );

    expect(isParkRequest(parked)).toBe(true);
    expect((parked as ParkRequest).waitFor).toEqual(["c1", "c2"]);
    const runId = started.runId;
    expect(typesOf(sink.events(runId))).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "run-parked",
    ]);
    const open = sink.state(runId);
    expect(open.status).toBe("running");
    expect(open.parked).toMatchObject({ step: 1, waitFor: ["c1", "c2"] });
    expect(open.steps[0]?.calls[0]).toMatchObject({ name: "wait_for", called: true });
    expect(open.steps[0]?.calls[0]?.outcome).toBeUndefined();

    tool.ready = true;
    await sink.append(runId, open.seq, [
      { type: "run-started", at: new Date().toISOString(), data: { attempt: 2, workerId: "w2" } },
    ]);
    const resumed = await runSteps({ agent, state: sink.state(runId), sink, signal, services });

    expect(tool.calls).toBe(2);
    expect(tool.services).toEqual(["the host's client", "the host's client"]);
    expect(typesOf(sink.events(runId)).slice(5)).toEqual([
      "run-started",
      "tool-called",
      "tool-result",
      "model-responded",
      "finished",
    ]);
    expect(resumed.steps).toHaveLength(2);
    expect(settleRun(resumed)).toMatchObject({ status: "succeeded", text: "done", attempts: 2 });
  });

  it("gives tools empty services when the host lends none", async () => {
    const { agent, tool } = waitingAgent();
    tool.ready = true;
    const sink = createMemorySink();
    const state = await startRun(sink, agent);
    await runSteps({ agent, state, sink, signal: new AbortController().signal });
    expect(tool.services).toEqual([undefined]);
  });
});
