import { describe, expect, it } from "vitest";
import { randomPool } from "./random-pool.js";

describe("randomPool", () => {
  it("hands out draws of its size, each once, across refills of the pool", () => {
    const draw = randomPool(10);
    const drawn = Array.from({ length: 1_000 }, () => draw());
    expect(drawn.every((bytes) => bytes.length === 10)).toBe(true);
    const texts = drawn.map((bytes) => Buffer.from(bytes).toString("hex"));
    expect(new Set(texts).size).toBe(texts.length);
  });
});
