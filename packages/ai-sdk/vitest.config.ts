import { defineErrandProject } from "../../vitest.preset.js";

/**
 * The test files share their workers' loaded modules (`isolate: false`):
 * they start no Redis and no process and stub nothing they do not restore, and
 * loading the modules again for each file took most of their time.
 */
export default defineErrandProject({ isolate: false });
