import { defineProject } from "vitest/config";

/**
 * The dashboard's tests. The global setup builds the page (vite) into
 * `dist/page`, which the browser test opens through the real server.
 */
export default defineProject({
  resolve: { conditions: ["@errand/source"] },
  ssr: { resolve: { conditions: ["@errand/source"] } },
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/test-support/build-page.ts"],
    hookTimeout: 60_000,
    testTimeout: 60_000,
  },
});
