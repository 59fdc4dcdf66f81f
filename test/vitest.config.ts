import { defineErrandProject } from "../vitest.preset.js";

/**
 * The cross-package tests. The files share their workers' loaded modules
 * (`isolate: false`): each stops what it starts and restores what it stubs,
 * and loading the workspace's modules again for each file cost processor
 * time (about 1.2 s a file that imports the engine).
 */
export default defineErrandProject({
  include: ["**/*.test.ts"],
  exclude: ["**/node_modules/**"],
  isolate: false,
});
