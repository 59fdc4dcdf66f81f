/**
 * A reasoning run on the Responses API keeps its reasoning across steps and
 * across a resume: a run whose first attempt dies between its steps (its
 * step-2 append never lands) is resumed from its log alone, and its step-2
 * request is the one the first attempt sent, byte for byte, carrying the
 * reasoning the server issued at step 1 (the fake server refuses reasoning it
 * did not issue, or sent back bare when nothing was stored).
 */
import { foldRun, type NewEvent, type RunEvent } from "@errand/core";
import { type FakeOpenAI, type ResponsesRequest, startFakeOpenAI } from "@errand/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./agent.js";
import { createMemorySink } from "./memory-sink.js";
import { openaiModel } from "./openai/model.js";
import type { ResponsesHistory } from "./openai/responses.js";
import { runSteps } from "./run-steps.js";
import type { EventSink } from "./sink.js";
import { addTool } from "./test-support/agents.js";
import { FAST_RETRIES, startRun, typesOf } from "./test-support/runs.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const script = [
  { call: [{ tool: "add", args: { a: 2, b: 2 } }] },
  { call: [{ tool: "structured_output", args: { sum: 4 } }] },
];

async function reasoner(history: ResponsesHistory) {
  fake = await startFakeOpenAI({ scripts: { "o-test": script } });
  return defineAgent({
    name: "reasoner",
    instructions: "Add, then record the sum.",
    model: openaiModel({
      apiKey: "test",
      baseURL: fake.baseURL,
      model: "o-test",
      api: "responses",
      history,
    }),
    modelSettings: { reasoning: { effort: "high", summary: "auto" } },
    tools: [addTool],
    outputSchema: z.object({ sum: z.number() }),
    maxSteps: 4,
  });
}

/** A sink whose appends after the first `lands` fail: the worker died before they landed. */
function dyingSink(inner: EventSink, lands: number): EventSink {
  let appends = 0;
  return {
    append(runId, expectedSeq, events) {
      appends += 1;
      if (appends > lands) return Promise.reject(new Error("the worker died"));
      return inner.append(runId, expectedSeq, events);
    },
  };
}

function asNew(events: readonly RunEvent[]): NewEvent[] {
  return events.map(({ type, at, data }) => ({ type, at, data }) as NewEvent);
}

describe.each<ResponsesHistory>(["resend", "previous-response"])(
  "a reasoning run on the Responses API (history %s)",
  (history) => {
    it("resumed from its log after dying between steps, sends step 2 exactly as the first attempt did", async () => {
      const agent = await reasoner(history);
      const sink = createMemorySink();
      const start = await startRun(sink, agent);
      const signal = new AbortController().signal;
      // Step 1 lands in two appends (its model-responded, then its tool call and result).
      const first = runSteps({ agent, state: start, sink: dyingSink(sink, 2), signal });
      await expect(first).rejects.toThrow("the worker died");
      const logged = sink.events(start.runId);
      expect(typesOf(logged)).toEqual([
        "run-queued",
        "run-started",
        "model-responded",
        "tool-called",
        "tool-result",
      ]);

      // Another worker, from the log alone: a fresh sink holding what landed, a new attempt.
      const other = createMemorySink();
      const restarted = await other.append(start.runId, 0, [
        ...asNew(logged),
        { type: "run-started", at: new Date().toISOString(), data: { attempt: 2, workerId: "b" } },
      ]);
      const resumed = await runSteps({
        agent,
        state: foldRun(restarted),
        sink: other,
        signal,
        retry: FAST_RETRIES,
      });
      expect(resumed.status).toBe("succeeded");
      expect(resumed.output?.value).toEqual({ sum: 4 });

      const [step1, beforeDeath, afterResume] = fake!.requests;
      expect(fake!.requests).toHaveLength(3);
      expect(afterResume!.rawBody).toBe(beforeDeath!.rawBody);

      const issued = step1!.answer!.body as {
        id: string;
        output: { type: string; id: string; encrypted_content?: string }[];
      };
      const reasoning = issued.output.find((item) => item.type === "reasoning")!;
      const sent = afterResume!.body as unknown as ResponsesRequest;
      const input = sent.input as { type?: string; id?: string; encrypted_content?: string }[];
      if (history === "resend") {
        expect(sent).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
        expect(input.map((item) => item.type)).toEqual([
          undefined,
          "reasoning",
          "function_call",
          "function_call_output",
        ]);
        expect(input[1]).toMatchObject({
          id: reasoning.id,
          encrypted_content: reasoning.encrypted_content,
        });
      } else {
        expect(sent).toMatchObject({ store: true, previous_response_id: issued.id });
        expect(input.map((item) => item.type)).toEqual(["function_call_output"]);
      }
      expect(logged[2]).toMatchObject({
        data: { items: [{ type: "reasoning", id: reasoning.id }, { type: "function_call" }] },
      });
    });
  },
);
