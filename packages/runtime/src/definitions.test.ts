import { isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_MAX_STEPS, defineAgent } from "./agent.js";
import { defineTool } from "./tool.js";

const noop = () => null;

function thrown(define: () => unknown): unknown {
  try {
    define();
  } catch (error) {
    return error;
  }
  return expect.unreachable("the definition should have been refused");
}

describe("defineTool", () => {
  it("sends strict JSON Schema parameters when every field is required", () => {
    const tool = defineTool({
      name: "search",
      description: "Searches.",
      parameters: z.object({ q: z.string(), limit: z.number().int().nullable() }),
      handler: noop,
    });
    expect(tool.spec).toEqual({
      name: "search",
      description: "Searches.",
      strict: true,
      parameters: {
        type: "object",
        properties: {
          q: { type: "string" },
          limit: {
            anyOf: [
              { type: "integer", minimum: expect.any(Number), maximum: expect.any(Number) },
              { type: "null" },
            ],
          },
        },
        required: ["q", "limit"],
        additionalProperties: false,
      },
    });
  });

  it("sends non-strict JSON Schema when the parameters fall outside the strict subset", () => {
    const tool = defineTool({
      name: "search",
      description: "Searches.",
      parameters: z.object({ q: z.string(), limit: z.number().optional() }),
      handler: noop,
    });
    expect(tool.spec.strict).toBe(false);
    expect(tool.spec.parameters).toMatchObject({
      type: "object",
      properties: { q: { type: "string" }, limit: { type: "number" } },
      required: ["q"],
    });
    expect(tool.spec.parameters).not.toHaveProperty("$schema");
  });

  it.each([
    ["a name with spaces", { name: "web search" }],
    ["a reserved name", { name: "structured_output" }],
    ["the alias", { name: "set_output" }],
    ["an empty description", { description: " " }],
    ["parameters that are not an object", { parameters: z.string() }],
  ])("refuses %s with invalid_spec", (_what, override) => {
    const error = thrown(() =>
      defineTool({
        name: "ok",
        description: "Fine.",
        parameters: z.object({}),
        handler: noop,
        ...override,
      } as Parameters<typeof defineTool>[0]),
    );
    expect(isErrandError(error, "invalid_spec")).toBe(true);
  });
});

describe("defineAgent", () => {
  const tool = defineTool({
    name: "t",
    description: "T.",
    parameters: z.object({}),
    handler: noop,
  });

  it("keeps the output schema as the JSON Schema preflight accepted, and defaults maxSteps", () => {
    const agent = defineAgent({
      name: "a",
      instructions: "i",
      model: "m",
      outputSchema: z.object({ answer: z.string() }),
    });
    expect(agent.outputSchema).toEqual({
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    });
    expect(agent.maxSteps).toBe(DEFAULT_MAX_STEPS);
    expect(agent.scriptFromInput).toBe(false);
  });

  it.each([
    ["a name with a colon", { name: "a:b" }],
    ["two tools with one name", { tools: [tool, tool] }],
    ["a maxSteps of 0", { maxSteps: 0 }],
    ["a fractional timeout", { timeoutMs: 1.5 }],
    ["an invalid script", { script: [{ shout: "x" }] }],
    ["an empty description", { description: "  " }],
    ["a description of two lines", { description: "Finds sources.\nThen cites them." }],
    ["a description over 200 characters", { description: "x".repeat(201) }],
  ])("refuses %s with invalid_spec", (_what, override) => {
    const error = thrown(() =>
      defineAgent({ name: "a", instructions: "i", model: "m", ...override } as Parameters<
        typeof defineAgent
      >[0]),
    );
    expect(isErrandError(error, "invalid_spec")).toBe(true);
  });

  it("says what is wrong with a description, and keeps one of 200 characters", () => {
    const long = thrown(() =>
      defineAgent({ name: "a", instructions: "i", model: "m", description: "x".repeat(201) }),
    );
    expect((long as Error).message).toBe(
      'agent "a": a description is at most 200 characters (this one has 201); say what the agent is for in one short line',
    );
    const agent = defineAgent({
      name: "a",
      instructions: "i",
      model: "m",
      description: "x".repeat(200),
    });
    expect(agent.description).toHaveLength(200);
  });

  it("keeps the input schema as JSON Schema, and refuses one outside the subset", () => {
    const agent = defineAgent({
      name: "a",
      instructions: "i",
      model: "m",
      inputSchema: z.object({ question: z.string() }),
    });
    expect(agent.inputSchema).toEqual({
      type: "object",
      properties: { question: { type: "string" } },
      required: ["question"],
      additionalProperties: false,
    });
    const open = { type: "object", properties: { question: { type: "string" } } };
    const error = thrown(() =>
      defineAgent({ name: "a", instructions: "i", model: "m", inputSchema: open }),
    );
    expect(isErrandError(error, "unsupported_schema")).toBe(true);
  });

  it("leaves an agent without description or input schema as it was", () => {
    const agent = defineAgent({ name: "a", instructions: "i", model: "m" });
    expect(agent).not.toHaveProperty("description");
    expect(agent).not.toHaveProperty("inputSchema");
  });
});
