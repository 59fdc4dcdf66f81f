import { defineProject } from "vitest/config";

/**
 * The CLI's tests spawn the built `errand` (`dist/main.js`), so the global
 * setup builds it and the packages it uses first (turbo caches the build).
 */
export default defineProject({
  resolve: { conditions: ["@errand/source"] },
  ssr: { resolve: { conditions: ["@errand/source"] } },
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/test-support/build-cli.ts"],
    hookTimeout: 120_000,
    testTimeout: 120_000,
  },
});
