/**
 * The version `errand --version` prints and `errand mcp` tells its clients:
 * the one in this package's `package.json` (one level above `src/` and `dist/`).
 */
import { readFileSync } from "node:fs";

/** The version in this package's `package.json`. */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  return String(manifest.version);
}
