import { defineErrandProject } from "../vitest.preset.js";

export default defineErrandProject({ include: ["**/*.test.ts"], exclude: ["**/node_modules/**"] });
