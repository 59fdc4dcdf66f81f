import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isErrandError } from "./errors.js";
import {
  INLINE_VALUE_LIMIT_BYTES,
  TOOL_TEXT_LIMIT_CHARS,
  truncateText,
  utf8ByteLength,
} from "./text-limits.js";

/** Any sequence of UTF-16 code units, lone surrogates included. */
const codeUnits = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

describe("truncateText", () => {
  it("leaves text within the limit alone", () => {
    expect(truncateText("hello", 5)).toStrictEqual({
      text: "hello",
      truncated: false,
      totalChars: 5,
    });
    expect(truncateText("", 0)).toStrictEqual({ text: "", truncated: false, totalChars: 0 });
  });

  it("cuts longer text at the limit and says so", () => {
    expect(truncateText("hello world", 5)).toStrictEqual({
      text: "hello",
      truncated: true,
      totalChars: 11,
    });
    expect(truncateText("abc", 0)).toStrictEqual({ text: "", truncated: true, totalChars: 3 });
  });

  it("never splits a surrogate pair", () => {
    // "😀" is two UTF-16 code units: cutting after "ab" plus half of it would leave a lone surrogate.
    expect(truncateText("ab😀c", 3)).toStrictEqual({ text: "ab", truncated: true, totalChars: 5 });
    expect(truncateText("ab😀c", 4)).toStrictEqual({
      text: "ab😀",
      truncated: true,
      totalChars: 5,
    });
  });

  it("defaults to the documented tool text limit", () => {
    const long = "x".repeat(TOOL_TEXT_LIMIT_CHARS + 10);
    expect(truncateText(long).text).toHaveLength(TOOL_TEXT_LIMIT_CHARS);
    expect(truncateText(long).totalChars).toBe(TOOL_TEXT_LIMIT_CHARS + 10);
  });

  it("returns a prefix of at most maxChars units that ends on a code point boundary", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), fc.nat(40), (text, maxChars) => {
        const cut = truncateText(text, maxChars);
        expect(text.startsWith(cut.text)).toBe(true);
        expect(cut.text.length).toBeLessThanOrEqual(maxChars);
        expect(cut.truncated).toBe(cut.text.length < text.length);
        expect(cut.totalChars).toBe(text.length);
        if (cut.truncated) {
          expect(cut.text.length).toBeGreaterThanOrEqual(maxChars - 1);
          const end = cut.text.length;
          expect(end > 0 && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))).toBe(
            false,
          );
        }
        // Whole code points in (no lone surrogates), whole code points out.
        expect(LONE_SURROGATE.test(cut.text)).toBe(false);
      }),
    );
  });

  it("refuses a negative or fractional limit", () => {
    for (const maxChars of [-1, 1.5]) {
      let caught: unknown;
      try {
        truncateText("abc", maxChars);
      } catch (error) {
        caught = error;
      }
      expect(isErrandError(caught, "internal")).toBe(true);
    }
  });
});

describe("utf8ByteLength", () => {
  it("counts 1 to 4 bytes per code point", () => {
    expect(utf8ByteLength("a")).toBe(1);
    expect(utf8ByteLength("é")).toBe(2);
    expect(utf8ByteLength("€")).toBe(3);
    expect(utf8ByteLength("😀")).toBe(4);
  });

  it("agrees with TextEncoder on every string, lone surrogates included", () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), codeUnits), (text) => {
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).length);
      }),
    );
  });

  it("documents the inline limit as 32 KiB", () => {
    expect(INLINE_VALUE_LIMIT_BYTES).toBe(32_768);
  });
});
