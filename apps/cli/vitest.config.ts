import { defineErrandProject } from "../../vitest.preset.js";

/**
 * The CLI's tests spawn the built `errand` (`dist/main.js`), so the global
 * setup builds it and the packages it uses first (turbo caches the build).
 * The test files share their workers' loaded modules (`isolate: false`):
 * each stops the Redis servers, workers and processes it starts and sets no
 * global (an in-process worker is given its logger, not `ERRAND_LOG_LEVEL`,
 * which every later `errand` spawned would inherit); loading the modules
 * again for each file took 48–54 s of processor time over the 41 files,
 * shared 8.5–11 s. The files run alone (`vitest.config.ts`) still get a
 * fresh module graph each.
 */
export default defineErrandProject({
  globalSetup: ["src/test-support/build-cli.ts"],
  hookTimeout: 120_000,
  testTimeout: 120_000,
  isolate: false,
});
