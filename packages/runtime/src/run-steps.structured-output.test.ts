/**
 * docs/architecture/structured-output.md, rule by rule: the exact events each rule writes
 * and the exact messages the model reads — on the scripted model, and over
 * HTTP through `openaiModel` on Chat Completions and on the Responses API
 * (the fake server plays the same scripts), where the requests sent are
 * checked too.
 */
import { isErrandError, type Script } from "@errand/core";
import { NO_STRUCTURED_OUTPUT_MESSAGE } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentOptions, assertAgentCanCarrySchema, defineAgent } from "./agent.js";
import type { Model } from "./model.js";
import { scriptedModel } from "./scripted-model.js";
import {
  invalidOutputMessage,
  OUTPUT_RECORDED_MESSAGE,
  outputAlreadyRecordedMessage,
  STRUCTURED_OUTPUT_INSTRUCTION,
} from "./structured-output.js";
import { type LaneName, type ModelLane, startLane } from "./test-support/model-lanes.js";
import { type PlayedRun, play } from "./test-support/play.js";
import { typesOf } from "./test-support/runs.js";
import { defineTool } from "./tool.js";
import { buildTranscript } from "./transcript.js";

const Person = z.object({ name: z.string(), age: z.number().int() });
const ada = { name: "Ada", age: 36 };
const INSTRUCTIONS = "Describe the person you are given.";

function countingTool() {
  const calls: unknown[] = [];
  const tool = defineTool({
    name: "count",
    description: "Counts its calls.",
    parameters: z.object({}),
    handler: () => {
      calls.push(true);
      return { count: calls.length };
    },
  });
  return { tool, calls };
}

const recordAda = { call: [{ tool: "structured_output", args: ada }] };

/** The call ids the model gave the calls of `step`, in order. */
function callIdsOf(run: PlayedRun, step: number): string[] {
  return run.state.steps.find((s) => s.step === step)?.calls.map((call) => call.callId) ?? [];
}

const LANES: LaneName[] = ["scripted", "chat", "responses"];

describe.each(LANES)("docs/architecture/structured-output.md on the %s model", (laneName) => {
  /** How many requests a lane over HTTP sent for `requests` model requests: none in process. */
  const overHttp = (requests: number) => (laneName === "scripted" ? 0 : requests);
  let lane: ModelLane;
  beforeAll(async () => {
    lane = await startLane(laneName);
  });
  afterAll(() => lane?.close());

  function profiler(script: Script, options: Partial<AgentOptions> = {}) {
    return defineAgent({
      name: "profiler",
      instructions: INSTRUCTIONS,
      outputSchema: Person,
      maxSteps: 5,
      ...lane.agentOptions(script),
      ...options,
    });
  }

  describe("§4.1 only a run that carries a schema gets the structured-output tool", () => {
    it("advertises structured_output with the run's own schema, strict, to a schema'd run", async () => {
      const agent = profiler([recordAda]);
      const run = await play(agent);
      const tools = run.requests[0]?.tools ?? [];
      expect(tools.map((t) => t.name)).toEqual(["structured_output"]);
      expect(tools[0]?.parameters).toEqual(run.state.queued?.outputSchema);
      expect(tools[0]?.strict).toBe(true);
      for (const sent of lane.sent(agent)) {
        expect(sent.tools).toEqual([
          { name: "structured_output", strict: true, parameters: tools[0]?.parameters },
        ]);
      }
    });

    it("does not advertise it to a run without a schema, and refuses a call to it as an unknown tool", async () => {
      const { tool } = countingTool();
      const agent = profiler([recordAda, { say: "Ada, 36." }], { tools: [tool] });
      const run = await play(agent, { outputSchema: null });
      expect(run.requests[0]?.tools.map((t) => t.name)).toEqual(["count"]);
      expect(run.events).toMatchObject([
        { type: "model-responded", data: { step: 1 } },
        {
          type: "refused",
          data: {
            step: 1,
            callId: callIdsOf(run, 1)[0],
            name: "structured_output",
            reason: "unknown-tool",
            message:
              "Error: there is no tool named structured_output. The tools you can call are: count.",
          },
        },
        { type: "model-responded", data: { step: 2, text: "Ada, 36." } },
        { type: "finished", data: { text: "Ada, 36." } },
      ]);
      expect(run.result).toMatchObject({ status: "succeeded", text: "Ada, 36." });
      for (const sent of lane.sent(agent)) expect(sent.tools.map((t) => t.name)).toEqual(["count"]);
    });
  });

  describe("§4.2 the model is told to call it exactly once, when its answer is complete", () => {
    it("adds the instruction to the system message of a schema'd run only", async () => {
      const schemad = profiler([recordAda]);
      const plain = profiler([{ say: "ok" }]);
      const withSchema = await play(schemad);
      const without = await play(plain, { outputSchema: null });
      const system = (run: typeof withSchema) => run.requests[0]?.messages[0];
      const instructed = `${INSTRUCTIONS}\n\n${STRUCTURED_OUTPUT_INSTRUCTION}`;
      expect(STRUCTURED_OUTPUT_INSTRUCTION).toContain("exactly once");
      expect(system(withSchema)).toEqual({ role: "system", content: instructed });
      expect(system(without)).toEqual({ role: "system", content: INSTRUCTIONS });
      for (const sent of lane.sent(schemad)) expect(sent.messages[0]?.content).toBe(instructed);
      for (const sent of lane.sent(plain)) expect(sent.messages[0]?.content).toBe(INSTRUCTIONS);
    });
  });

  describe("§4.3 a valid call is recorded, acknowledged, and ends the run", () => {
    it("writes output-recorded and finished in the step's one append and asks the model nothing more", async () => {
      const agent = profiler([{ say: "Done.", ...recordAda }, { say: "never asked" }]);
      const run = await play(agent);
      const [callId] = callIdsOf(run, 1);
      expect(run.events).toMatchObject([
        {
          type: "model-responded",
          data: {
            step: 1,
            text: "Done.",
            calls: [{ callId, name: "structured_output", args: ada }],
          },
        },
        { type: "output-recorded", data: { step: 1, callId, output: ada } },
        { type: "finished", data: { text: "Done." } },
      ]);
      expect(run.appends).toHaveLength(1);
      expect(run.requests).toHaveLength(1);
      expect(lane.sent(agent)).toHaveLength(overHttp(1));
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
      expect(buildTranscript(run.requests[0]!.agent, run.state).at(-1)).toEqual({
        role: "tool",
        callId,
        name: "structured_output",
        content: OUTPUT_RECORDED_MESSAGE,
      });
    });
  });

  describe("§4.4 calls before the recorded one run; every call after it is refused", () => {
    it("runs the call before, refuses each call after with the exact message naming its tool", async () => {
      const { tool, calls } = countingTool();
      const script: Script = [
        {
          call: [
            { tool: "count", args: {} },
            { tool: "structured_output", args: ada },
            { tool: "count", args: {} },
            { tool: "set_output", args: { name: "Bob", age: 1 } },
          ],
        },
      ];
      const run = await play(profiler(script, { tools: [tool] }));
      const ids = callIdsOf(run, 1);
      expect(calls).toHaveLength(1);
      expect(typesOf(run.events)).toEqual([
        "model-responded",
        "tool-called",
        "tool-result",
        "output-recorded",
        "refused",
        "refused",
        "finished",
      ]);
      expect(run.events[2]).toMatchObject({
        data: { callId: ids[0], ok: true, result: { count: 1 } },
      });
      expect(run.events[4]?.data).toEqual({
        step: 1,
        callId: ids[2],
        name: "count",
        reason: "output-already-recorded",
        message:
          "Error: structured output already recorded: the run is complete, so count is not executed.",
      });
      expect(run.events[5]?.data).toEqual({
        step: 1,
        callId: ids[3],
        name: "set_output",
        reason: "output-already-recorded",
        message: outputAlreadyRecordedMessage("set_output"),
      });
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });
  });

  describe("§4.5 invalid arguments are refused with the issues; the model can correct them", () => {
    it("refuses with invalid-arguments listing path and problem, then records the corrected call", async () => {
      const script: Script = [
        { call: [{ tool: "structured_output", args: { name: "Ada", age: "36" } }] },
        { call: [{ tool: "structured_output", args: ada }] },
      ];
      const agent = profiler(script);
      const run = await play(agent);
      const issues = ["age: expected number, received string"];
      const message = invalidOutputMessage("structured_output", issues);
      expect(message).toBe(
        "Error: the arguments of structured_output do not match the output schema. Fix these issues and call structured_output again:\n- age: expected number, received string",
      );
      const [refusedId] = callIdsOf(run, 1);
      expect(run.events).toMatchObject([
        { type: "model-responded", data: { step: 1 } },
        {
          type: "refused",
          data: {
            step: 1,
            callId: refusedId,
            name: "structured_output",
            reason: "invalid-arguments",
            message,
            issues,
          },
        },
        { type: "model-responded", data: { step: 2 } },
        { type: "output-recorded", data: { step: 2, callId: callIdsOf(run, 2)[0], output: ada } },
        { type: "finished", data: {} },
      ]);
      expect(run.requests[1]?.messages.at(-1)).toEqual({
        role: "tool",
        callId: refusedId,
        name: "structured_output",
        content: message,
      });
      const resent = lane.sent(agent).map((sent) => sent.messages.at(-1));
      expect(resent.slice(1)).toEqual(
        overHttp(1) === 0
          ? []
          : [expect.objectContaining({ role: "tool", tool_call_id: refusedId, content: message })],
      );
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });

    it("accepts arguments wrapped as { data: … } when the unwrapped value matches", async () => {
      const run = await play(profiler([{ call: [{ tool: "set_output", args: { data: ada } }] }]));
      expect(run.events[1]).toMatchObject({ type: "output-recorded", data: { output: ada } });
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });
  });

  describe("§4.8 a run that finishes without recording settles as no_structured_output", () => {
    it("writes finished after one request, with no nudge, and folds to no_structured_output", async () => {
      const agent = profiler([{ say: "Ada is 36." }, recordAda]);
      const run = await play(agent);
      expect(run.events).toMatchObject([
        { type: "model-responded", data: { step: 1, text: "Ada is 36.", calls: [] } },
        { type: "finished", data: { text: "Ada is 36." } },
      ]);
      expect(run.requests).toHaveLength(1);
      expect(lane.sent(agent)).toHaveLength(overHttp(1));
      expect(run.result).toMatchObject({
        status: "failed",
        text: "Ada is 36.",
        error: {
          code: "no_structured_output",
          message: NO_STRUCTURED_OUTPUT_MESSAGE,
          retryable: false,
        },
      });
    });

    it("keeps a run's own failure reason, and a cancelled run reads as cancelled", async () => {
      const looping = Array.from({ length: 3 }, () => ({ call: [{ tool: "count", args: {} }] }));
      const { tool } = countingTool();
      const failed = await play(profiler(looping, { tools: [tool], maxSteps: 2 }));
      expect(failed.result).toMatchObject({ status: "failed", error: { code: "max_steps" } });
      const controller = new AbortController();
      controller.abort("user changed their mind");
      const cancelled = await play(profiler([recordAda]), { signal: controller.signal });
      expect(cancelled.result).toMatchObject({
        status: "cancelled",
        error: { code: "cancelled", message: "the run was cancelled: user changed their mind" },
      });
    });
  });

  describe("an unknown tool", () => {
    it("is refused as unknown-tool and the model recovers", async () => {
      const { tool } = countingTool();
      const script: Script = [{ call: [{ tool: "search", args: { q: "Ada" } }] }, recordAda];
      const run = await play(profiler(script, { tools: [tool] }));
      expect(run.events).toMatchObject([
        { type: "model-responded" },
        {
          type: "refused",
          data: {
            name: "search",
            reason: "unknown-tool",
            message:
              "Error: there is no tool named search. The tools you can call are: count, structured_output.",
          },
        },
        { type: "model-responded" },
        { type: "output-recorded" },
        { type: "finished" },
      ]);
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });
  });
});

/** An agent of the rules below, which hold before any model is asked. */
function profiler(options: Partial<AgentOptions> = {}) {
  return defineAgent({
    name: "profiler",
    instructions: INSTRUCTIONS,
    model: scriptedModel(),
    outputSchema: Person,
    maxSteps: 5,
    ...options,
  });
}

describe("§4.6 a schema outside the supported subset is refused before the run starts", () => {
  it.each([
    ["an optional field", z.object({ name: z.string(), age: z.number().optional() })],
    [
      "an open object",
      { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    ],
  ])("refuses %s with unsupported JSON schema: <why>", (_what, schema) => {
    const define = () => profiler({ outputSchema: schema });
    expect(define).toThrow(/^unsupported JSON schema: /);
    try {
      define();
    } catch (error) {
      expect(isErrandError(error, "unsupported_schema")).toBe(true);
    }
  });
});

describe("§4.7 an agent whose model cannot call tools refuses a schema'd run", () => {
  const textOnly: Model = {
    name: "text-only",
    supportsTools: false,
    respond: () => Promise.reject(new Error("must not be asked")),
  };

  it("is refused when defined, and when the host resolves such a model for a named one", () => {
    expect(() => profiler({ model: textOnly })).toThrow(/cannot call tools/);
    const named = profiler({ model: "some-text-model" });
    expect(() => assertAgentCanCarrySchema(named, textOnly)).toThrow(
      expect.objectContaining({ code: "schema_not_supported" }),
    );
    expect(() => assertAgentCanCarrySchema(named, scriptedModel())).not.toThrow();
    const noSchema = profiler({ model: textOnly, outputSchema: undefined });
    expect(() => assertAgentCanCarrySchema(noSchema)).not.toThrow();
  });

  it("fails such a run before any model request if one reaches runSteps anyway", async () => {
    const named = profiler({ model: "some-text-model" });
    const run = await play(named, { model: textOnly });
    expect(run.requests).toHaveLength(0);
    expect(run.events).toMatchObject([
      { type: "failed", data: { code: "schema_not_supported", retryable: false } },
    ]);
  });
});
