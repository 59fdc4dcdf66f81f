import { defineErrandProject } from "../../vitest.preset.js";

/**
 * The CLI's tests spawn the built `errand` (`dist/main.js`), so the global
 * setup builds it and the packages it uses first (turbo caches the build).
 */
export default defineErrandProject({
  globalSetup: ["src/test-support/build-cli.ts"],
  hookTimeout: 120_000,
  testTimeout: 120_000,
});
