import { engineKeys } from "@errand/engine";
import { describe, expect, it } from "vitest";
import { keyGroups } from "./co-location.js";
import { hashTagOf, splitGroups } from "./hash-tags.js";

describe("hashTagOf", () => {
  it.each([
    ["errand:{s3}:run:R1:log", "s3"],
    ["errand:{queue}:runs:wait", "queue"],
    ["plain-key", "plain-key"],
    ["a{}b{c}", "a{}b{c}"],
    ["a{b", "a{b"],
    ["x{y}{z}", "y"],
  ])("%s hashes %s", (key, tag) => {
    expect(hashTagOf(key)).toBe(tag);
  });
});

describe("keyGroups", () => {
  it("keeps every key of a shard, and of a queue, under one hash tag", () => {
    const groups = keyGroups(engineKeys("errand"), ["city-queue"]);
    expect(groups.map((group) => group.name)).toContain("shard 15");
    expect(groups.map((group) => group.name)).toContain("queue city-queue");
    expect(splitGroups(groups)).toEqual([]);
  });

  it("finds a group whose keys do not share a tag", () => {
    const split = { name: "mixed", keys: ["p:{s1}:a", "p:{s2}:b"] };
    expect(splitGroups([{ name: "fine", keys: ["p:{s1}:a", "q:{s1}:b"] }, split])).toEqual([split]);
  });
});
