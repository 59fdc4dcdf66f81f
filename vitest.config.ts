import { defineConfig } from "vitest/config";

/**
 * One vitest run over every package and the cross-package suite, so `npm test`
 * prints one summary. Workspace packages resolve to their TypeScript sources
 * through the `@errand/source` export condition: tests need no build step.
 */
export default defineConfig({
  resolve: { conditions: ["@errand/source"] },
  ssr: { resolve: { conditions: ["@errand/source"] } },
  test: {
    projects: ["packages/*", "apps/*", "test"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
