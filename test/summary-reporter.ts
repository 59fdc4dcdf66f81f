import type { Reporter, TestModule } from "vitest/node";

/** How many of the slowest test files the closing lines name. */
const SLOWEST_FILES_SHOWN = 15;

/**
 * Prints plain closing lines after vitest's own summary: the slowest test
 * files with their durations (what to look at when CI gets slow), then
 * `N passed, N failed`, so that CI (which reads that line) sees the totals of
 * the whole run. A test that was meant to run but did not because its file
 * failed (an error at import or in a `beforeAll`) counts as failed, and so
 * does a failed file without tests; a test left out by a filter (`-t`) is
 * skipped.
 */
export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      const moduleFailed = testModule.state() === "failed";
      for (const testCase of testModule.children.allTests()) {
        const state = testCase.result().state;
        const meantToRun = testCase.options.mode === "run" || testCase.options.mode === "only";
        if (state === "passed") passed++;
        else if (state === "failed" || (moduleFailed && meantToRun)) failed++;
        else skipped++;
      }
      if (moduleFailed && testModule.children.size === 0) failed++;
    }
    process.stdout.write(slowestFiles(testModules));
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
