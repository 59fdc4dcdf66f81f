/**
 * docs/architecture/structured-output.md#rule-1: each run carries its own schema; two runs of one agent with
 * different schemas, stepping at the same time, never see each other's.
 */
import { preflightSchema, type Script } from "@errand/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./agent.js";
import { createMemorySink } from "./memory-sink.js";
import type { Model, ModelRequest } from "./model.js";
import { scriptedModel } from "./scripted-model.js";
import { play } from "./test-support/play.js";

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const checked = preflightSchema(schema);
  if (!checked.ok) throw new Error(checked.reason);
  return checked.jsonSchema;
}

const citySchema = jsonSchema(z.object({ city: z.string() }));
const tempSchema = jsonSchema(z.object({ celsius: z.number() }));

/**
 * A scripted model that holds every request until two are in flight at once,
 * so the two runs are proven to be mid-request at the same time.
 */
function overlapModel(): Model & { maxInFlight: number } {
  const inner = scriptedModel();
  let inFlight = 0;
  let bothArrived: () => void = () => {};
  const barrier = new Promise<void>((resolve) => {
    bothArrived = resolve;
  });
  const model = {
    name: "overlap",
    supportsTools: true,
    maxInFlight: 0,
    async respond(request: ModelRequest, signal: AbortSignal) {
      inFlight++;
      model.maxInFlight = Math.max(model.maxInFlight, inFlight);
      if (inFlight === 2) bothArrived();
      try {
        await barrier;
        return await inner.respond(request, signal);
      } finally {
        inFlight--;
      }
    },
  };
  return model;
}

describe("two runs with different schemas at the same time", () => {
  it("each is offered, validated against and records only its own schema", async () => {
    const agent = defineAgent({
      name: "reporter",
      instructions: "Report.",
      model: "shared",
      scriptFromInput: true,
      maxSteps: 4,
    });
    const model = overlapModel();
    const sink = createMemorySink();
    // Each first tries the other run's shape (which its own schema must refuse), then its own.
    const cityScript: Script = [
      { call: [{ tool: "structured_output", args: { celsius: 21 } }] },
      { call: [{ tool: "structured_output", args: { city: "Oslo" } }] },
    ];
    const tempScript: Script = [
      { call: [{ tool: "structured_output", args: { city: "Oslo" } }] },
      { call: [{ tool: "structured_output", args: { celsius: 21 } }] },
    ];
    const [city, temp] = await Promise.all([
      play(agent, { model, sink, outputSchema: citySchema, input: { script: cityScript } }),
      play(agent, { model, sink, outputSchema: tempSchema, input: { script: tempScript } }),
    ]);

    expect(model.maxInFlight).toBe(2);
    const offered = (run: typeof city) =>
      run.requests.map((r) => r.tools.find((t) => t.name === "structured_output")?.parameters);
    expect(offered(city)).toEqual([citySchema, citySchema]);
    expect(offered(temp)).toEqual([tempSchema, tempSchema]);

    expect(city.events[1]).toMatchObject({
      type: "refused",
      data: {
        reason: "invalid-arguments",
        issues: expect.arrayContaining(['$: Unrecognized key: "celsius"']),
      },
    });
    expect(temp.events[1]).toMatchObject({
      type: "refused",
      data: {
        reason: "invalid-arguments",
        issues: expect.arrayContaining(['$: Unrecognized key: "city"']),
      },
    });
    expect(city.result).toMatchObject({ status: "succeeded", output: { city: "Oslo" } });
    expect(temp.result).toMatchObject({ status: "succeeded", output: { celsius: 21 } });
  });
});
