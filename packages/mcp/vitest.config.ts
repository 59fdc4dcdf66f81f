import { defineErrandProject } from "../../vitest.preset.js";

export default defineErrandProject();
