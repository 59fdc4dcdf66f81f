import { describe, expect, it } from "vitest";
import { addToGroup } from "./add-to-group.js";

describe("addToGroup", () => {
  it("groups items by key in order, each key's list kept and grown in place", () => {
    const groups = new Map<string, number[]>();
    addToGroup(groups, "a", 1);
    const first = groups.get("a");
    addToGroup(groups, "b", 2);
    addToGroup(groups, "a", 3);
    expect([...groups]).toEqual([
      ["a", [1, 3]],
      ["b", [2]],
    ]);
    expect(groups.get("a")).toBe(first);
  });
});
