import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * Builds the page (`src/page`) into `dist/page`: one script and one
 * stylesheet, hashed, with nothing fetched from elsewhere at run time.
 */
export default defineConfig({
  root: fileURLToPath(new URL("src/page/", import.meta.url)),
  base: "/",
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("dist/page/", import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
