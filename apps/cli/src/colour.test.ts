import { describe, expect, it } from "vitest";
import { ANSI_PAINT, colourWanted, PLAIN_PAINT } from "./colour.js";

describe("colourWanted", () => {
  it.each<[string, boolean | undefined, string | undefined, boolean]>([
    ["a terminal without NO_COLOR", true, undefined, true],
    ["a terminal with NO_COLOR empty", true, "", true],
    ["a terminal with NO_COLOR=1", true, "1", false],
    ["a terminal with NO_COLOR=false (any non-empty value)", true, "false", false],
    ["a pipe", false, undefined, false],
    ["a stream that does not say", undefined, undefined, false],
  ])("%s: %s", (_label, isTTY, noColor, wanted) => {
    const stream = { write: () => true, ...(isTTY === undefined ? {} : { isTTY }) };
    expect(colourWanted(stream, { NO_COLOR: noColor })).toBe(wanted);
  });
});

describe("paints", () => {
  it("wraps text in the style's ANSI codes, or leaves it as is", () => {
    expect(ANSI_PAINT("red", "failed")).toBe("\x1b[31mfailed\x1b[39m");
    expect(ANSI_PAINT("dim", "├── ")).toBe("\x1b[2m├── \x1b[22m");
    expect(PLAIN_PAINT("red", "failed")).toBe("failed");
  });
});
