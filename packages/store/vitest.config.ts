import { defineErrandProject } from "../../vitest.preset.js";

/**
 * The test files share their workers' loaded modules (`isolate: false`):
 * each starts its own Redis and leaves no global behind, and loading the
 * modules again for each file took longer than their tests.
 */
export default defineErrandProject({ isolate: false });
