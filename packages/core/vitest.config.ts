import { defineProject } from "vitest/config";

/**
 * The test files share their workers' loaded modules (`isolate: false`):
 * they start no Redis and no process and stub nothing they do not restore, and
 * loading the modules again for each file took most of their time.
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
