import { defineProject } from "vitest/config";

/**
 * The test files share their workers' loaded modules (`isolate: false`):
 * each starts its own Redis and leaves no global behind, and loading the
 * modules again for each file took longer than their tests.
 */
export default defineProject({
  resolve: { conditions: ["@errand/source"] },
  ssr: { resolve: { conditions: ["@errand/source"] } },
  test: {
    include: ["src/**/*.test.ts"],
    isolate: false,
    hookTimeout: 30_000,
    testTimeout: 60_000,
  },
});
