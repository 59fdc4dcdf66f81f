/**
 * The closing line `N passed, N failed` (`summary-reporter.ts`) agrees with
 * vitest's own summary: a real vitest run over the fixtures of
 * `summary-line/` (a test that fails, one skipped, a suite whose `beforeAll`
 * throws, a file that fails to load, an error thrown outside any test), both
 * summaries read from its output.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const FIXTURES = fileURLToPath(new URL("./summary-line/", import.meta.url));

/** The run's output, without colours. */
function runFixtures(): string {
  const vitestBin = join(
    dirname(createRequire(import.meta.url).resolve("vitest/package.json")),
    "vitest.mjs",
  );
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")),
  );
  const run = spawnSync(process.execPath, [vitestBin, "run", "--config", "vitest.config.ts"], {
    cwd: FIXTURES,
    env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0", CI: "true" },
    encoding: "utf8",
  });
  expect(run.status).toBe(1);
  return `${run.stdout}\n${run.stderr}`;
}

/** The number `pattern` captures in `output`, or 0 where vitest prints no such line or part. */
function countIn(output: string, pattern: RegExp): number {
  return Number(pattern.exec(output)?.[1] ?? 0);
}

describe("the closing line of the test run", () => {
  it("counts as vitest does: its passed and skipped tests, every failure it lists with an error", () => {
    const output = runFixtures();
    const testsLine = /^\s*Tests\s+(.*)$/m.exec(output)?.[1] ?? "";
    const vitest = {
      passed: countIn(testsLine, /(\d+) passed/),
      failedTests: countIn(testsLine, /(\d+) failed/),
      skipped: countIn(testsLine, /(\d+) skipped/),
      failedSuites: countIn(output, /Failed Suites (\d+)/),
      unhandledErrors: countIn(output, /^\s*Errors\s+(\d+) errors?/m),
    };
    expect(vitest).toEqual({
      // The test beside the suite whose beforeAll threw, and the one that leaves an error behind.
      passed: 2,
      failedTests: 1,
      // The two tests of the suite whose beforeAll threw, and the one skipped on purpose.
      skipped: 3,
      // The suite whose beforeAll threw, and the file that failed to load.
      failedSuites: 2,
      unhandledErrors: 1,
    });
    const failed = vitest.failedTests + vitest.failedSuites + vitest.unhandledErrors;
    expect(output).toMatch(
      new RegExp(`^${vitest.passed} passed, ${failed} failed, ${vitest.skipped} skipped$`, "m"),
    );
    expect(output).toContain(
      "failed = 1 failed tests + 2 failed suites (a test file that failed to load, or a hook that threw) + 1 unhandled errors",
    );
  });
});
