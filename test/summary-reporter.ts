import type { Reporter, SerializedError, TestModule, TestSuite } from "vitest/node";

/** How many of the slowest test files the closing lines name. */
const SLOWEST_FILES_SHOWN = 15;

/**
 * Prints plain closing lines after vitest's own summary: the slowest test
 * files with their durations (what to look at when CI gets slow), then
 * `N passed, N failed`, so that CI (which reads that line) sees the totals of
 * the whole run, counted as vitest counts them:
 * - passed and skipped are the passed and skipped of vitest's `Tests` line
 *   (a test that did not run because a hook of its suite failed is skipped
 *   there, and here);
 * - failed is every failure vitest reports with its error: the failed tests
 *   of its `Tests` line, plus each test file or suite that failed outside any
 *   test (a file that failed to load, a `beforeAll` or `afterAll` that threw:
 *   vitest's "Failed Suites"), plus each error outside any file (vitest's
 *   "Unhandled Errors"). When the last two are not zero, a line before says
 *   how the failed are made up.
 */
export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failedTests = 0;
    let skipped = 0;
    let failedSuites = 0;
    for (const testModule of testModules) {
      for (const testCase of testModule.children.allTests()) {
        const state = testCase.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedTests++;
        else skipped++;
      }
      const suites: (TestModule | TestSuite)[] = [testModule, ...testModule.children.allSuites()];
      failedSuites += suites.filter((suite) => suite.errors().length > 0).length;
    }
    const failed = failedTests + failedSuites + unhandledErrors.length;
    process.stdout.write(slowestFiles(testModules));
    if (failed > failedTests) {
      process.stdout.write(
        `\nfailed = ${failedTests} failed tests + ${failedSuites} failed suites (a test file that failed to load, or a hook that threw) + ${unhandledErrors.length} unhandled errors, as vitest lists them above\n`,
      );
    }
    const skippedPart = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\n${passed} passed, ${failed} failed${skippedPart}\n`);
  }
}

/** The slowest files, one line each: seconds in tests and hooks, seconds importing, project and path. */
function slowestFiles(testModules: ReadonlyArray<TestModule>): string {
  const timed = testModules.map((testModule) => {
    const { duration, collectDuration } = testModule.diagnostic();
    return { testModule, duration, collectDuration };
  });
  timed.sort((a, b) => b.duration + b.collectDuration - (a.duration + a.collectDuration));
  const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
  const lines = timed
    .slice(0, SLOWEST_FILES_SHOWN)
    .map(
      ({ testModule, duration, collectDuration }) =>
        `${seconds(duration)} s tests ${seconds(collectDuration)} s import  [${testModule.project.name}] ${testModule.relativeModuleId}`,
    );
  return `\nslowest test files:\n${lines.join("\n")}\n`;
}
