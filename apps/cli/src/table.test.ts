import { describe, expect, it } from "vitest";
import { formatTable, truncateCell } from "./table.js";

describe("formatTable", () => {
  it("aligns columns two spaces apart without trailing spaces", () => {
    expect(
      formatTable([
        ["run", "status", "steps"],
        ["R1", "succeeded", "1"],
        ["R22", "failed", ""],
      ]),
    ).toEqual(["run  status     steps", "R1   succeeded  1", "R22  failed"]);
  });

  it("cuts cells to their column's width with an ellipsis, on one line", () => {
    expect(formatTable([["abcdefgh", "x\ny"]], [5])).toEqual(["abcd…  x y"]);
  });
});

describe("truncateCell", () => {
  it("counts characters, not UTF-16 units", () => {
    expect(truncateCell("São Paulo 🌆🌆", 11)).toBe("São Paulo …");
    expect(truncateCell("🌆🌆", 2)).toBe("🌆🌆");
  });
});
