/**
 * The model conformance suite: the same scenarios, through `openaiModel` and
 * the real `openai` client over HTTP, against every server lane — the
 * repository's fake server and the independent `@dwmkerr/mock-llm`, each on
 * Chat Completions and on the Responses API. The runtime README's table
 * says which lanes pass which scenarios; this suite is what it stands on.
 */
import { defineAgent } from "@errand/runtime";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runAgent } from "./run-agent.js";
import { SCENARIOS } from "./scenarios.js";
import { SERVER_LANES, type ServerLane } from "./server-lanes.js";

describe.each(SERVER_LANES)("model conformance on $id", ({ start }) => {
  let lane: ServerLane;
  beforeAll(async () => {
    lane = await start();
  });
  afterAll(() => lane?.close());

  it.each(SCENARIOS)("$title", async (scenario) => {
    const { options, check } = scenario.setup();
    const { model, exchanges } = await lane.prepare(scenario.id, scenario.turns);
    const agent = defineAgent({
      name: `conformance-${scenario.id}`,
      instructions: "Follow the test's turns.",
      model,
      maxSteps: 5,
      ...options,
    });
    const run = await runAgent(agent, model, "Describe Ada.");
    check({ run, exchanges, lane });
  });
});
