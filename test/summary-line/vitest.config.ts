/**
 * A vitest run over the fixture files beside this config, with vitest's own
 * reporter and the repository's closing line: `summary-reporter.test.ts`
 * compares the two. Not part of the repository's run (its files are not
 * `*.test.ts`).
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["*.fixture.ts"],
    reporters: ["default", "../summary-reporter.ts"],
  },
});
