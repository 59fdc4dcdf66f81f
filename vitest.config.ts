import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * How many test files run at once: as many as the cores. Most files spend
 * their time waiting (on Redis, child processes, lock and stall timers) rather
 * than computing, so vitest's default (one fewer than the cores: one file at a
 * time on a 2-core CI machine) left a core idle through every wait.
 */
const TEST_FILES_AT_ONCE = availableParallelism();

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
    maxWorkers: TEST_FILES_AT_ONCE,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
