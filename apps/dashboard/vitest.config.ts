import { defineErrandProject } from "../../vitest.preset.js";

/**
 * The dashboard's tests. The global setup builds the page (vite) into
 * `dist/page`, which the browser test opens through the real server. The
 * files share their workers' loaded modules (`isolate: false`): each starts
 * and stops its own Redis and dashboard and leaves no global behind, and
 * loading the modules again for each file took about as long as the tests.
 */
export default defineErrandProject({
  globalSetup: ["src/test-support/build-page.ts"],
  isolate: false,
  hookTimeout: 60_000,
});
