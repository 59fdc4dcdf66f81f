/**
 * The key structured-output and failure scenarios again, this time through the
 * real `openai` client over HTTP against the fake OpenAI-compatible server,
 * on Chat Completions and on the Responses API.
 */
import type { Script } from "@errand/core";
import { type FakeOpenAI, readSentRequest, startFakeOpenAI } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { abortableSleep } from "./abort.js";
import { defineAgent } from "./agent.js";
import { createMemorySink } from "./memory-sink.js";
import type { Model } from "./model.js";
import { openaiModel } from "./openai/model.js";
import { runSteps } from "./run-steps.js";
import {
  invalidOutputMessage,
  outputAlreadyRecordedMessage,
  STRUCTURED_OUTPUT_INSTRUCTION,
} from "./structured-output.js";
import { play } from "./test-support/play.js";
import { startRun, typesOf } from "./test-support/runs.js";
import { defineTool } from "./tool.js";

const ada = { name: "Ada", age: 36 };
const record = (args: unknown) => ({ call: [{ tool: "structured_output", args }] });

const scripts: Record<string, Script> = {
  "record-once": [record(ada), { say: "never asked" }],
  "invalid-then-valid": [record({ name: "Ada", age: "36" }), record(ada)],
  "call-after-recording": [
    {
      call: [
        { tool: "structured_output", args: ada },
        { tool: "lookup", args: { q: "Ada" } },
      ],
    },
  ],
  "no-recording": [{ say: "Ada is 36." }, record(ada)],
  slow: [{ say: "too late", sleepMs: 60_000 }],
  "server-error": [{ fail: "upstream exploded", status: 500 }, record(ada)],
  "rate-limited": [{ fail: "slow down", status: 429, retryAfterSeconds: 1 }, record(ada)],
};

const lookups: string[] = [];
const lookup = defineTool({
  name: "lookup",
  description: "Looks something up.",
  parameters: z.object({ q: z.string() }),
  handler: ({ q }) => {
    lookups.push(q);
    return { found: q };
  },
});

/** An agent whose model name picks its script on the fake server. */
function agentFor(scriptName: keyof typeof scripts) {
  return defineAgent({
    name: `http-${scriptName}`,
    instructions: "Describe the person.",
    model: scriptName,
    tools: [lookup],
    outputSchema: z.object({ name: z.string(), age: z.number().int() }),
    maxSteps: 4,
  });
}

describe.each(["chat", "responses"] as const)(
  "runSteps through the openai client over HTTP, on the %s API",
  (api) => {
    // A server of its own: fail turns are counted per conversation, and both APIs hold the same ones.
    let fake: FakeOpenAI;
    let model: Model;
    beforeAll(async () => {
      fake = await startFakeOpenAI({ scripts });
      model = openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "unused-default", api });
    });
    afterAll(() => fake.close());

    /** The requests of this API the fake server got for one model, read alike. */
    function requestsFor(modelName: string) {
      const path = api === "chat" ? "/v1/chat/completions" : "/v1/responses";
      return fake.requests
        .filter((r) => r.path === path && r.body?.model === modelName)
        .map((r) => readSentRequest(r.path, r.body));
    }

    it("records a valid output once, acknowledges it and asks nothing more", async () => {
      const run = await play(agentFor("record-once"), { model });
      expect(typesOf(run.events)).toEqual(["model-responded", "output-recorded", "finished"]);
      expect(run.events[1]?.data).toMatchObject({ output: ada });
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
      const sent = requestsFor("record-once");
      expect(sent).toHaveLength(1);
      const tool = sent[0]?.tools.find((t) => t.name === "structured_output");
      expect(tool).toMatchObject({ strict: true, parameters: run.state.queued?.outputSchema });
      expect(sent[0]?.messages[0]?.content).toContain(STRUCTURED_OUTPUT_INSTRUCTION);
    });

    it("refuses invalid arguments with the issues and records the corrected call", async () => {
      const run = await play(agentFor("invalid-then-valid"), { model });
      expect(typesOf(run.events)).toEqual([
        "model-responded",
        "refused",
        "model-responded",
        "output-recorded",
        "finished",
      ]);
      const issues = ["age: expected number, received string"];
      expect(run.events[1]?.data).toMatchObject({ reason: "invalid-arguments", issues });
      const second = requestsFor("invalid-then-valid")[1]?.messages.at(-1);
      expect(second).toMatchObject({
        role: "tool",
        content: invalidOutputMessage("structured_output", issues),
      });
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });

    it("refuses a call made after the output was recorded", async () => {
      const before = lookups.length;
      const run = await play(agentFor("call-after-recording"), { model });
      expect(typesOf(run.events)).toEqual([
        "model-responded",
        "output-recorded",
        "refused",
        "finished",
      ]);
      expect(run.events[2]?.data).toMatchObject({
        name: "lookup",
        reason: "output-already-recorded",
        message: outputAlreadyRecordedMessage("lookup"),
      });
      expect(lookups.length).toBe(before);
      expect(requestsFor("call-after-recording")).toHaveLength(1);
    });

    it("settles a run that finishes without recording as no_structured_output, with no nudge", async () => {
      const run = await play(agentFor("no-recording"), { model });
      expect(typesOf(run.events)).toEqual(["model-responded", "finished"]);
      expect(run.result).toMatchObject({
        status: "failed",
        error: { code: "no_structured_output" },
      });
      expect(requestsFor("no-recording")).toHaveLength(1);
    });

    it("cancels during a slow model call, aborting the HTTP request", async () => {
      const agent = agentFor("slow");
      const sink = createMemorySink();
      const state = await startRun(sink, agent);
      const controller = new AbortController();
      const running = runSteps({ agent, state, model, sink, signal: controller.signal });
      await expect.poll(() => requestsFor("slow").length).toBe(1);
      controller.abort("stop the slow one");
      const settled = await running;
      expect(settled.status).toBe("cancelled");
      expect(typesOf(sink.events(state.runId)).slice(2)).toEqual(["cancelled"]);
      expect(sink.events(state.runId).at(-1)?.data).toEqual({ reason: "stop the slow one" });
    });

    it("retries a 500 and then succeeds", async () => {
      const run = await play(agentFor("server-error"), { model });
      expect(requestsFor("server-error")).toHaveLength(2);
      expect(typesOf(run.events)).toEqual(["model-responded", "output-recorded", "finished"]);
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });

    it("waits the retry-after of a 429 before retrying, then succeeds", async () => {
      const waits: number[] = [];
      const run = await play(agentFor("rate-limited"), {
        model,
        retry: {
          sleep: (ms, signal) => {
            waits.push(ms);
            return abortableSleep(ms, signal);
          },
        },
      });
      expect(waits).toEqual([1000]);
      expect(requestsFor("rate-limited")).toHaveLength(2);
      expect(run.result).toMatchObject({ status: "succeeded", output: ada });
    });
  },
);
