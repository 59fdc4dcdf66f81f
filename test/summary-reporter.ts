import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one plain closing line, `N passed, N failed`, after vitest's own
 * summary, so that CI (which reads that line) sees the totals of the whole run.
 * A test that did not run because its file failed (an error at import or in
 * a `beforeAll`) counts as failed, and so does a failed file without tests.
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
        if (state === "passed") passed++;
        else if (state === "failed" || moduleFailed) failed++;
        else skipped++;
      }
      if (moduleFailed && testModule.children.size === 0) failed++;
    }
    const skippedPart = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\n${passed} passed, ${failed} failed${skippedPart}\n`);
  }
}
