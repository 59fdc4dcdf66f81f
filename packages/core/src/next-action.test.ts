import { describe, expect, it } from "vitest";
import { NextAction } from "./next-action.js";

describe("NextAction", () => {
  it("accepts a tool with its arguments, and an optional wait", () => {
    const action = {
      tool: "collect_agents",
      args: { runIds: ["R1"], wait: true },
      afterSeconds: 5,
    };
    expect(NextAction.parse(action)).toStrictEqual(action);
    expect(NextAction.parse({ tool: "collect_agents", args: {} })).toStrictEqual({
      tool: "collect_agents",
      args: {},
    });
  });

  it("refuses an empty tool name, arguments that are not an object, and a negative wait", () => {
    expect(NextAction.safeParse({ tool: "", args: {} }).success).toBe(false);
    expect(NextAction.safeParse({ tool: "collect_agents", args: ["R1"] }).success).toBe(false);
    expect(
      NextAction.safeParse({ tool: "collect_agents", args: {}, afterSeconds: -1 }).success,
    ).toBe(false);
  });
});
