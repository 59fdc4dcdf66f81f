/**
 * `spawn_agents`' description, as the parent's model reads it: the agents
 * the tool is given, one line each (`name — description`, the name alone for
 * an agent without one), after the tool's own text; none listed when none
 * is given.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { describe, expect, it } from "vitest";
import { parentTools } from "./parent-tools.js";
import { createSpawnAgentsTool, spawnAgentsTool } from "./spawn-agents.js";

const researcher = defineAgent({
  name: "researcher",
  description: "Answers one factual question from web sources.",
  instructions: "Research.",
  model: scriptedModel(),
});
const writer = defineAgent({ name: "writer", instructions: "Write.", model: scriptedModel() });

describe("spawn_agents' description", () => {
  it("lists the agents it is given with their descriptions", () => {
    const tool = createSpawnAgentsTool({ agents: [researcher, writer], maxDepth: 2 });
    expect(tool.spec.description).toBe(
      `${spawnAgentsTool.spec.description}\nAgents you can spawn:\n- researcher — Answers one factual question from web sources.\n- writer`,
    );
    const [spawn] = parentTools({ agents: [researcher] });
    expect(spawn?.spec.description.split("\n").slice(1)).toEqual([
      "Agents you can spawn:",
      "- researcher — Answers one factual question from web sources.",
    ]);
  });

  it("lists none when it is given none", () => {
    expect(spawnAgentsTool.spec.description).not.toContain("Agents you can spawn");
    expect(spawnAgentsTool.spec.description).toMatch(/^Starts sub-agents in the background/);
  });
});
