/**
 * Vitest global setup of the dashboard's tests: builds the page with vite
 * into `dist/page` (the browser test opens it through the real server).
 */
import { fileURLToPath } from "node:url";
import { build } from "vite";

/** Builds the page. */
export default async function buildPage(): Promise<void> {
  await build({
    configFile: fileURLToPath(new URL("../../vite.config.ts", import.meta.url)),
    logLevel: "warn",
  });
}
