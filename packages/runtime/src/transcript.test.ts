/**
 * The transcript of a run of many steps: each step's messages are built
 * once and handed, the same objects, to every later model request, so a
 * step costs the same whether it is a run's 2nd or its 200th; and a
 * transcript rebuilt from the state alone equals one built step by step.
 */
import type { Script } from "@errand/core";
import { describe, expect, it } from "vitest";
import { addTool, scriptedAgent } from "./test-support/agents.js";
import { play } from "./test-support/play.js";
import { buildTranscript } from "./transcript.js";

const STEPS = 6;

describe("buildTranscript over many steps", () => {
  it("hands every later request the same messages of a step, built once", async () => {
    const script: Script = [
      ...Array.from({ length: STEPS }, (_, index) => ({
        call: [{ tool: "add", args: { a: index, b: 1 } }],
      })),
      { say: "done" },
    ];
    const agent = scriptedAgent(script, { tools: [addTool], maxSteps: 2 * STEPS });
    const run = await play(agent);
    expect(run.requests).toHaveLength(STEPS + 1);
    const last = run.requests.at(-1)!.messages;
    // system, user, then an assistant message and a tool message per step.
    expect(last).toHaveLength(2 + 2 * STEPS);
    run.requests.forEach((request, index) => {
      // Request k+1 holds steps 1 … k: each message is the very object the last request holds.
      expect(request.messages).toHaveLength(2 + 2 * index);
      request.messages.slice(2).forEach((message, at) => {
        expect(message).toBe(last[2 + at]);
      });
    });
    expect(last.filter((message) => message.role === "tool").map((m) => m.content)).toEqual(
      Array.from({ length: STEPS }, (_, index) => JSON.stringify({ sum: index + 1 })),
    );
    // Rebuilt from the settled state alone, without the cache of the run's own steps, it reads the same.
    const rebuilt = buildTranscript(agent, structuredClone(run.state));
    expect(rebuilt.slice(0, last.length)).toEqual(last);
  });
});
