import { defineErrandProject } from "../../vitest.preset.js";

/** The HTTP API's tests: each file starts its own Redis, worker, collector and API server. */
export default defineErrandProject({ hookTimeout: 60_000 });
