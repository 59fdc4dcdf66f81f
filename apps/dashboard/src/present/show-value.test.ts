import { REDACTED } from "@errand/core";
import { describe, expect, it } from "vitest";
import { showValue, showWhole } from "./show-value.js";

const limits = { maxStringChars: 5, maxItems: 2, maxDepth: 3 };

/** `{ a: { a: … "end" } }`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = "end";
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

describe("showValue", () => {
  it("keeps small values whole and says nothing was cut", () => {
    const value = { a: "short", b: [1, 2], c: { d: null } };
    expect(showValue(value, limits)).toEqual({ value, truncated: false });
  });

  it("cuts long strings and arrays at any depth and says how much was left out", () => {
    const { value, truncated } = showValue(
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

  it("cuts nesting below maxDepth with a note, and keeps what is above it", () => {
    expect(showValue(nested(3), limits)).toEqual({ value: nested(3), truncated: false });
    expect(showValue({ a: { a: { a: [[1]] } }, empty: {} }, limits)).toEqual({
      value: { a: { a: { a: "… [nested deeper than 3 levels]" } }, empty: {} },
      truncated: true,
    });
  });

  it("shows arguments nested thousands of levels deep, cut, without overflowing the stack", () => {
    const { value, truncated } = showValue({ args: nested(20_000) });
    expect(truncated).toBe(true);
    expect(JSON.stringify(value)).toContain("nested deeper than 24 levels");
    expect(JSON.stringify(showWhole(nested(20_000)))).toContain("nested deeper than 64 levels");
  });
});

describe("showValue's redaction", () => {
  it("redacts before it cuts: a secret the cut would split, pairs, JSON held as text", () => {
    const longText = `${"x".repeat(1_990)} password=hunter2-hunter2`;
    const { value } = showValue({
      longText,
      env: [{ name: "apiKey", value: "sk-pair-1" }],
      headers: [["Authorization", "sk-pair-2"]],
      preview: JSON.stringify({ token: "sk-json-3", rows: [1, 2] }),
    });
    const shown = JSON.stringify(value);
    for (const secret of ["hunter", "sk-pair-1", "sk-pair-2", "sk-json-3"]) {
      expect(shown).not.toContain(secret);
    }
    expect(value).toMatchObject({
      longText: `${"x".repeat(1_990)} password=… [${REDACTED.length} more characters]`,
      env: [{ name: "apiKey", value: REDACTED }],
      headers: [["Authorization", REDACTED]],
      preview: JSON.stringify({ token: REDACTED, rows: [1, 2] }),
    });
  });
});

describe("showWhole", () => {
  it("replaces the values of secret keys at any depth, in objects and arrays", () => {
    const value = {
      city: "Lyon",
      apiKey: "sk-1",
      nested: { deeper: [{ password: "hunter2", keep: 1 }], Authorization: "Bearer x" },
      list: [{ client_secret: { any: "shape" } }, "plain"],
    };
    expect(showWhole(value)).toEqual({
      city: "Lyon",
      apiKey: REDACTED,
      nested: { deeper: [{ password: REDACTED, keep: 1 }], Authorization: REDACTED },
      list: [{ client_secret: REDACTED }, "plain"],
    });
    expect(value.apiKey).toBe("sk-1");
  });

  it("keeps long values whole and returns scalars as they are", () => {
    expect(showWhole({ text: "x".repeat(10_000) })).toEqual({ text: "x".repeat(10_000) });
    expect(showWhole("token")).toBe("token");
    expect(showWhole(null)).toBeNull();
    expect(showWhole(3)).toBe(3);
  });
});
