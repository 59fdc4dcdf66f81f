import { describe, expect, it } from "vitest";
import { CHROMIUM_ENV, chromiumExecutable } from "./browser.js";

describe("chromiumExecutable", () => {
  it("says how to get Chromium when the one named is missing", () => {
    expect(() => chromiumExecutable({ [CHROMIUM_ENV]: "/nonexistent/chromium" })).toThrow(
      /browser test needs Chromium, and \/nonexistent\/chromium is not an executable: install Debian's \(apt-get install -y chromium\), or set ERRAND_CHROMIUM/,
    );
  });

  it("takes the executable ERRAND_CHROMIUM names", () => {
    expect(chromiumExecutable({ [CHROMIUM_ENV]: process.execPath })).toBe(process.execPath);
  });
});
