import { describe, expect, it } from "vitest";
import { compileLinearPattern, type LinearPattern } from "./linear-pattern.js";

function compiled(source: string): LinearPattern {
  const result = compileLinearPattern(source);
  if (!result.ok) throw new Error(result.problem);
  return result.pattern;
}

describe("compileLinearPattern", () => {
  it("matches anywhere in the text, as JSON Schema's pattern does", () => {
    expect(compiled("b+").test("abbbc")).toBe(true);
    expect(compiled("^b+$").test("abbbc")).toBe(false);
    expect(compiled("^\\d{3}-\\d{4}$").test("555-0100")).toBe(true);
  });

  it("answers a pattern that makes a backtracking engine take exponential time, on a long adversarial text", () => {
    const pattern = compiled("^(a+)+$");
    expect(pattern.test(`${"a".repeat(100_000)}!`)).toBe(false);
    expect(pattern.test("a".repeat(100_000))).toBe(true);
  });

  it("reads ECMAScript's \\uHHHH escapes, and leaves an escaped backslash alone", () => {
    expect(compiled("^\\u0041\\u00e9$").test("Aé")).toBe(true);
    expect(compiled("^\\\\u0041$").test("\\u0041")).toBe(true);
    expect(compiled("^\\\\u0041$").test("A")).toBe(false);
  });

  it.each([
    ["a backreference", "(a)\\1", "invalid escape sequence: `\\1`"],
    ["a lookahead", "(?=a)a", "invalid or unsupported Perl syntax: `(?=`"],
    ["a repeat count over 1,000", "a{1001}", "invalid repeat count: `{1001}`"],
    ["a syntax error", "[a", "missing closing ]: `[a`"],
  ])("refuses %s with RE2's reason, never throwing", (_label, source, problem) => {
    expect(compileLinearPattern(source)).toEqual({ ok: false, problem });
  });
});
