import { utf8ByteLength } from "@errand/core/ops";
import { DEFAULT_MAX_INPUT_BYTES } from "@errand/engine";
import { describe, expect, it } from "vitest";
import { designedSummary, MAX_DEMO_CHILDREN, parentInput } from "./parent-plan.js";
import { planChildren, SCENARIOS } from "./scenarios.js";

describe("planChildren", () => {
  it("plays each scenario once in the first five children", () => {
    expect(planChildren(5).map((child) => child.scenario)).toEqual([...SCENARIOS]);
  });

  it("designs 12 children to end 9 succeeded, 2 failed, 1 cancelled", () => {
    expect(designedSummary(planChildren(12))).toEqual({
      total: 12,
      succeeded: 9,
      failed: 2,
      cancelled: 1,
    });
  });

  it("numbers the children from 1 in their input", () => {
    expect(planChildren(3).map((child) => child.input.child)).toEqual([1, 2, 3]);
  });
});

describe("parentInput", () => {
  it("spawns every child with its input and schema, collects them, then records the designed summary", () => {
    const children = planChildren(6);
    const input = parentInput(children);
    expect(input.children.map((spec) => spec.input)).toEqual(children.map((child) => child.input));
    expect(input.children[0]?.outputSchema).toMatchObject({
      required: ["city", "population"],
      additionalProperties: false,
    });
    expect(input.script.map((turn) => ("call" in turn ? turn.call?.[0]?.tool : undefined))).toEqual(
      ["spawn_agents", "collect_agents", "structured_output"],
    );
    expect(input.script[1]).toEqual({ call: [{ tool: "collect_agents", args: { wait: true } }] });
    expect(input.script[2]).toEqual({
      call: [
        {
          tool: "structured_output",
          args: { total: 6, succeeded: 3, failed: 2, cancelled: 1 },
        },
      ],
    });
  });

  it("fits the engine's default input limit with the most children the demo fires", () => {
    const bytes = (count: number) =>
      utf8ByteLength(JSON.stringify(parentInput(planChildren(count))));
    expect(bytes(MAX_DEMO_CHILDREN)).toBeLessThanOrEqual(DEFAULT_MAX_INPUT_BYTES);
    // The input grows with every child: the limit is the largest count that matters.
    expect(bytes(MAX_DEMO_CHILDREN)).toBeGreaterThan(bytes(MAX_DEMO_CHILDREN - 1));
  });
});
