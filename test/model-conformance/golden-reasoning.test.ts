/**
 * The golden reasoning histories, replayed into the request their step 2
 * asks: the log of the run that ran through and the log of the run resumed
 * by another worker rebuild the same Responses API request, which gives the
 * model back its step-1 reasoning (with its encrypted content), its function
 * calls with their ids, in their order, then the tool results.
 */
import { foldRun, RunEvent } from "@errand/core";
import { defineAgent, defineTool, openaiModel } from "@errand/runtime";
import { buildTranscript } from "@errand/runtime/ops";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadGoldenHistories } from "../golden/histories.mjs";

const population = defineTool({
  name: "population",
  description: "The population of a city.",
  parameters: z.object({ city: z.string() }),
  handler: () => undefined,
});

/** The agent of the golden reasoning runs, as its log names it. */
const cityReasoner = defineAgent({
  name: "city-reasoner",
  instructions: "Compare the cities of your input and record the larger.",
  model: "o-golden",
  modelSettings: { reasoning: { effort: "medium" } },
  tools: [population],
  outputSchema: z.object({ city: z.string(), population: z.number().int() }),
});

/** The body of the step-2 request rebuilt from `events`, cut before step 2's answer. */
async function step2Request(events: unknown[]): Promise<unknown> {
  const log = events.map((event) => RunEvent.parse(event));
  const step2 = log.findIndex((event) => event.type === "model-responded" && event.data.step === 2);
  const state = foldRun(log.slice(0, step2));
  let sent: unknown;
  const client = new OpenAI({
    apiKey: "test",
    baseURL: "http://golden.invalid/v1",
    maxRetries: 0,
    fetch: async (_url, init) => {
      sent = JSON.parse(String(init?.body));
      return Response.json({ id: "resp_x", object: "response", status: "completed", output: [] });
    },
  });
  const model = openaiModel({ client, model: "o-golden", api: "responses" });
  await model.respond(
    {
      runId: state.runId,
      step: 2,
      messages: buildTranscript(cityReasoner, state),
      tools: cityReasoner.tools.map((tool) => tool.spec),
      settings: cityReasoner.modelSettings,
      agent: cityReasoner,
      input: state.queued?.input,
    },
    new AbortController().signal,
  );
  return sent;
}

const histories = new Map(loadGoldenHistories().map((history) => [history.name, history.events]));

describe("the golden reasoning histories", () => {
  it("rebuild the same step-2 request, run through or resumed, with the reasoning in order", async () => {
    const throughRun = await step2Request(histories.get("reasoning-run")!);
    const resumed = await step2Request(histories.get("reasoning-run-resumed")!);
    expect(resumed).toEqual(throughRun);
    expect((throughRun as { input: unknown }).input).toEqual([
      { role: "user", content: "Which is larger, Lyon or Nice?" },
      {
        type: "reasoning",
        id: "rs_01",
        summary: [{ type: "summary_text", text: "Look up both populations before comparing." }],
        encrypted_content: "gAAAAABo-step1-reasoning-ciphertext",
      },
      {
        type: "function_call",
        id: "fc_01",
        call_id: "call_lyon",
        name: "population",
        arguments: '{"city":"Lyon"}',
      },
      {
        type: "function_call",
        id: "fc_02",
        call_id: "call_nice",
        name: "population",
        arguments: '{"city":"Nice"}',
      },
      {
        type: "function_call_output",
        call_id: "call_lyon",
        output: '{"city":"Lyon","population":522250}',
      },
      {
        type: "function_call_output",
        call_id: "call_nice",
        output: '{"city":"Nice","population":348085}',
      },
    ]);
    expect(throughRun).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
  });
});
