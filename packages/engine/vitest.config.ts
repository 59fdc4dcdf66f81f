import { defineErrandProject } from "../../vitest.preset.js";

/**
 * The test files share their workers' loaded modules (`isolate: false`):
 * each starts and stops its own Redis, workers and processes, restores what
 * it stubs and leaves no global behind, and loading the engine's modules
 * again for each file took about 1.2 s of processor time a file. The files
 * run alone (`vitest.config.ts`) still get a fresh module graph each.
 */
export default defineErrandProject({ isolate: false });
