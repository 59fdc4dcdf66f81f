import { describe, expect, it } from "vitest";
import { previewValue } from "./truncate.js";

const limits = { maxStringChars: 5, maxItems: 2 };

describe("previewValue", () => {
  it("keeps small values whole and says nothing was cut", () => {
    const value = { a: "short", b: [1, 2], c: { d: null } };
    expect(previewValue(value, limits)).toEqual({ value, truncated: false });
  });

  it("cuts long strings and arrays at any depth and says how much was left out", () => {
    const { value, truncated } = previewValue(
      { text: "abcdefgh", items: [1, 2, 3, 4], deep: { list: ["x", "123456"] } },
      limits,
    );
    expect(truncated).toBe(true);
    expect(value).toEqual({
      text: "abcde… [3 more characters]",
      items: [1, 2, "… [2 more items]"],
      deep: { list: ["x", "12345… [1 more characters]"] },
    });
  });
});
