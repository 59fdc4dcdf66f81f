/**
 * `openaiModel({ stream: true })` through the real `openai` client against
 * the fake server streaming in each API's format: the deltas published on the
 * live channel arrive in order and add up to exactly what the run logs, and a
 * stream cut off midway is asked again, opening a new `start`.
 */
import type { LiveDelta, Script } from "@errand/core";
import { type FakeOpenAI, startFakeOpenAI } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "../agent.js";
import type { LiveChannel } from "../live-model.js";
import { play } from "../test-support/play.js";
import { typesOf } from "../test-support/runs.js";
import { defineTool } from "../tool.js";
import { openaiModel } from "./model.js";

const story = "Once upon a time a worker streamed every word it wrote, in order.";
const scripts: Record<string, Script> = {
  tell: [{ call: [{ tool: "note", args: { title: "a long enough title" } }] }, { say: story }],
  "cut-off": [{ say: story }],
};

const note = defineTool({
  name: "note",
  description: "Takes a note.",
  parameters: z.object({ title: z.string() }),
  handler: () => "noted",
});

/** A live channel that keeps what is published. */
function memoryChannel(): LiveChannel & { deltas: LiveDelta[] } {
  const deltas: LiveDelta[] = [];
  return {
    deltas,
    publish: (_runId, delta) => deltas.push(delta),
    flush: () => Promise.resolve(),
  };
}

function textOf(deltas: readonly LiveDelta[], step: number): string {
  return deltas.map((d) => (d.type === "text" && d.step === step ? d.text : "")).join("");
}

describe.each(["chat", "responses"] as const)("a streamed answer on the %s API", (api) => {
  let fake: FakeOpenAI;
  let cutOnce = false;
  beforeAll(async () => {
    fake = await startFakeOpenAI({
      scripts,
      intercept(request) {
        if (request.body?.model !== "cut-off" || cutOnce) return undefined;
        cutOnce = true;
        const chunk =
          api === "chat"
            ? { choices: [{ index: 0, delta: { content: "Once upon" }, finish_reason: null }] }
            : { type: "response.output_text.delta", output_index: 0, delta: "Once upon" };
        return {
          status: 200,
          text: `data: ${JSON.stringify(chunk)}\n\n`,
          headers: { "content-type": "text/event-stream" },
        };
      },
    });
  });
  afterAll(() => fake.close());

  const model = () =>
    openaiModel({ apiKey: "test", baseURL: fake.baseURL, model: "unused", api, stream: true });

  it("publishes text and tool-argument deltas in order that add up to the logged step", async () => {
    const agent = defineAgent({
      name: "teller",
      instructions: "Tell.",
      model: "tell",
      tools: [note],
    });
    const live = memoryChannel();
    const run = await play(agent, { model: model(), live });
    expect(typesOf(run.events)).toEqual([
      "model-responded",
      "tool-called",
      "tool-result",
      "model-responded",
      "finished",
    ]);
    const sent = fake.requests.filter((r) => r.body?.model === "tell");
    expect(sent.every((r) => r.body?.stream === true)).toBe(true);

    const first = run.events[0]?.data as {
      calls: { callId: string; name: string; args: unknown }[];
    };
    const argumentDeltas = live.deltas.filter((d) => d.type === "tool-arguments");
    expect(argumentDeltas.length).toBeGreaterThan(2);
    expect(argumentDeltas[0]).toMatchObject({
      step: 1,
      index: 0,
      name: "note",
      callId: first.calls[0]?.callId,
    });
    const args = argumentDeltas.map((d) => d.text).join("");
    expect(JSON.parse(args)).toEqual(first.calls[0]?.args);

    const second = run.events[3]?.data as { text: string; usage: { outputTokens: number } };
    expect(second.text).toBe(story);
    expect(second.usage.outputTokens).toBeGreaterThan(0);
    expect(live.deltas.filter((d) => d.type === "text" && d.step === 2).length).toBeGreaterThan(5);
    expect(textOf(live.deltas, 2)).toBe(story);
    expect(live.deltas.filter((d) => d.type === "start")).toEqual([
      { type: "start", step: 1, attempt: 1 },
      { type: "start", step: 2, attempt: 1 },
    ]);
    expect(live.deltas[0]?.type).toBe("start");
  });

  it("asks again when the stream ends before its answer, opening a new start", async () => {
    const agent = defineAgent({ name: "cut", instructions: "Tell.", model: "cut-off" });
    const live = memoryChannel();
    const run = await play(agent, { model: model(), live });
    expect(run.result).toMatchObject({ status: "succeeded", text: story });
    const starts = live.deltas.flatMap((d, at) => (d.type === "start" ? [at] : []));
    expect(starts).toHaveLength(2);
    expect(textOf(live.deltas.slice(0, starts[1]), 1)).toBe("Once upon");
    expect(textOf(live.deltas.slice(starts[1]), 1)).toBe(story);
  });
});
