/**
 * The model conformance suite on the AI SDK: the same scenarios through
 * `aiSdkModel` on every lane — the real `@ai-sdk/openai` (Chat Completions
 * and Responses), `@ai-sdk/anthropic` and `@ai-sdk/google` packages over
 * HTTP against local servers speaking their wire formats (JSON and streamed),
 * and the AI SDK's own mock models of specifications v3 and v4. A fake that
 * drifted from its wire format would fail here, since the provider packages
 * parse every answer.
 */
import { defineAgent } from "@errand/runtime";
import { afterAll, beforeAll, describe, it } from "vitest";
import { AI_SDK_LANES, type AiSdkLane } from "./ai-sdk-lanes.js";
import { AI_SDK_SCENARIOS } from "./ai-sdk-scenarios.js";
import { runAgent } from "./run-agent.js";

describe.each(AI_SDK_LANES)("model conformance on $id", ({ start }) => {
  let lane: AiSdkLane;
  beforeAll(async () => {
    lane = await start();
  });
  afterAll(() => lane?.close());

  it.each(AI_SDK_SCENARIOS)("$title", async (scenario) => {
    const { options, check } = scenario.setup();
    const prepared = await lane.prepare(scenario.id, scenario.turns(lane));
    const agent = defineAgent({
      name: `conformance-${scenario.id}`,
      instructions: "Follow the test's turns.",
      model: prepared.model,
      maxSteps: 5,
      ...options,
    });
    const run = await runAgent(agent, prepared.model, "Describe Ada.");
    check({ run, prepared, lane });
  });
});
