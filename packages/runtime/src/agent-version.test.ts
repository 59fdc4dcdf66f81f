import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentOptions, defineAgent } from "./agent.js";
import { agentVersion } from "./agent-version.js";
import { scriptedModel } from "./scripted-model.js";
import { defineTool } from "./tool.js";

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  parameters: z.object({ word: z.string() }),
  handler: ({ word }) => word,
});
const shout = defineTool({
  name: "shout",
  description: "Shouts.",
  parameters: z.object({ text: z.string() }),
  handler: ({ text }) => text.toUpperCase(),
});

const base: AgentOptions = {
  name: "versioned",
  instructions: "Answer.",
  model: "gpt-4o-mini",
  tools: [lookup, shout],
  outputSchema: z.object({ answer: z.string() }),
};

describe("agentVersion", () => {
  it("is stable: the same definition gives the same version, whatever the order of its tools", () => {
    const first = agentVersion(defineAgent(base));
    expect(first).toMatch(/^h[0-9a-f]{12}$/);
    expect(agentVersion(defineAgent({ ...base }))).toBe(first);
    expect(agentVersion(defineAgent({ ...base, tools: [shout, lookup] }))).toBe(first);
    // Limits and the name are not part of the code a run resumes on.
    expect(agentVersion(defineAgent({ ...base, maxSteps: 3 }))).toBe(first);
  });

  it("changes with the instructions, the tools, their schemas, the model and the output schema", () => {
    const first = agentVersion(defineAgent(base));
    const changed: AgentOptions[] = [
      { ...base, instructions: "Answer briefly." },
      { ...base, tools: [lookup] },
      {
        ...base,
        tools: [
          lookup,
          defineTool({ ...shout, parameters: z.object({ text: z.string(), loud: z.boolean() }) }),
        ],
      },
      { ...base, model: "gpt-4o" },
      { ...base, model: scriptedModel() },
      { ...base, outputSchema: z.object({ answer: z.number() }) },
      { ...base, outputSchema: undefined },
    ];
    const versions = changed.map((options) => agentVersion(defineAgent(options)));
    for (const version of versions) expect(version).not.toBe(first);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it("is the given version when the agent gives one, and refuses a malformed one", () => {
    expect(agentVersion(defineAgent({ ...base, version: "2026.12.1" }))).toBe("2026.12.1");
    expect(() => defineAgent({ ...base, version: "v 2" })).toThrow(/version/);
  });
});
