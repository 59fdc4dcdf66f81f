import { describe, expect, it } from "vitest";
import { compileOutputSchema, OUTPUT_MAX_NESTING } from "./structured-output.js";

/** A closed object schema with every property required. */
function object(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  };
}

function issuesOf(schema: Record<string, unknown>, value: unknown): string[] {
  const check = compileOutputSchema(schema).check(value);
  return check.ok ? [] : check.issues;
}

describe("validating answers: pattern and format in linear time", () => {
  const backtracking = object({ word: { type: "string", pattern: "^(a+)+$" } });

  it("answers ^(a+)+$ against a long run of a's and a '!', which a backtracking engine takes minutes over", () => {
    const adversarial = `${"a".repeat(5_000)}!`;
    expect(issuesOf(backtracking, { word: adversarial })).toEqual([
      "word: must match the pattern ^(a+)+$",
    ]);
    expect(issuesOf(backtracking, { word: "a".repeat(5_000) })).toEqual([]);
  });

  it("matches a pattern anywhere in the string unless it is anchored", () => {
    const code = object({ code: { type: "string", pattern: "[0-9]{3}" } });
    expect(issuesOf(code, { code: "ab123cd" })).toEqual([]);
    expect(issuesOf(code, { code: "ab12cd" })).toEqual(["code: must match the pattern [0-9]{3}"]);
  });

  it.each([
    [
      "date-time",
      ["2024-02-29T23:59:60.5+01:00", "2025-01-01T00:00:00Z"],
      ["2023-02-29T00:00:00Z", "2025-01-01T00:00Z", "2025-01-01 00:00:00Z"],
    ],
    ["date", ["2024-02-29", "2025-12-31"], ["2023-02-29", "2025-04-31", "2025-13-01", "25-01-01"]],
    ["time", ["23:59:59Z", "00:00:00.123-05:30"], ["24:00:00Z", "12:00:00", "12:00Z"]],
    ["duration", ["P3Y6M4DT12H30M5S", "P2W", "PT0.5S", "P1D"], ["P", "PT", "P1DT", "P1W2D", "3Y"]],
    [
      "email",
      ["ada@example.com", "first.last+tag@mail.example.org"],
      ["ada", "ada@", "@example.com", "ada@example"],
    ],
    [
      "hostname",
      ["example.com", "a-b.example.", "localhost"],
      ["-bad.example", "exa mple.com", `${"a".repeat(64)}.com`],
    ],
    ["ipv4", ["192.168.0.1", "0.0.0.0"], ["256.1.1.1", "1.2.3", "01.2.3.4"]],
    [
      "ipv6",
      ["::1", "2001:db8::8a2e:370:7334", "fe80:0:0:0:0:0:0:1"],
      ["12345::", "1:2:3:4:5:6:7:8:9", "::g"],
    ],
    ["uuid", ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567e89b12d3a456426614174000", "xyz"]],
  ])("checks format %s", (format, valid, invalid) => {
    const schema = object({ value: { type: "string", format } });
    for (const value of valid) expect(issuesOf(schema, { value }), value).toEqual([]);
    for (const value of invalid) {
      expect(issuesOf(schema, { value }), value).toEqual([`value: must be a valid ${format}`]);
    }
  });

  it("refuses a hostname longer than 253 characters", () => {
    const schema = object({ host: { type: "string", format: "hostname" } });
    const label = "a".repeat(63);
    const long = [label, label, label, label].join("."); // 255 characters
    expect(issuesOf(schema, { host: long })).toEqual(["host: must be a valid hostname"]);
    expect(issuesOf(schema, { host: long.slice(0, 253) })).toEqual([]);
  });
});

describe("validating answers: the rest of the subset", () => {
  it("applies string, number and array constraints", () => {
    const schema = object({
      name: { type: "string", minLength: 2, maxLength: 3 },
      score: { type: "number", minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
      tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 },
    });
    expect(issuesOf(schema, { name: "ab", score: 9.5, tags: ["x"] })).toEqual([]);
    const issues = issuesOf(schema, { name: "abcd", score: 10, tags: [] });
    expect(issues).toHaveLength(3);
    expect(issues.join("\n")).toMatch(/^name: .*\nscore: .*\ntags: /);
    expect(issuesOf(schema, { name: "ab", score: 0.3, tags: ["x"] })[0]).toMatch(/^score: /);
  });

  it("holds an enum to the constraints beside it", () => {
    const schema = object({ size: { type: "string", enum: ["s", "xl"], maxLength: 1 } });
    expect(issuesOf(schema, { size: "s" })).toEqual([]);
    expect(issuesOf(schema, { size: "xl" })[0]).toMatch(/^size: /);
    expect(issuesOf(schema, { size: "m" })[0]).toMatch(/^size: /);
  });

  it("reads mixed enums, a null const and $refs through percent-encoded pointers", () => {
    const schema = object(
      { pick: { enum: ["a", 1, null] }, none: { const: null }, word: { $ref: "#/$defs/a%20word" } },
      { $defs: { "a word": { type: "string" } } },
    );
    expect(issuesOf(schema, { pick: 1, none: null, word: "w" })).toEqual([]);
    expect(issuesOf(schema, { pick: null, none: null, word: "w" })).toEqual([]);
    expect(issuesOf(schema, { pick: 2, none: 0, word: 3 })).toHaveLength(3);
  });

  it(`refuses arguments nested deeper than ${OUTPUT_MAX_NESTING}, a recursive schema's too, without exhausting the stack`, () => {
    const tree = object(
      { root: { $ref: "#/$defs/node" } },
      { $defs: { node: object({ children: { type: "array", items: { $ref: "#/$defs/node" } } }) } },
    );
    const depth = (levels: number) => {
      let node: unknown = { children: [] };
      for (let i = 1; i < levels; i++) node = { children: [node] };
      return { root: node };
    };
    expect(issuesOf(tree, depth(10))).toEqual([]);
    const issues = issuesOf(tree, depth(100_000));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^root(\.children(\[0\])?)+: is nested more than 100 levels deep/);
  });
});
