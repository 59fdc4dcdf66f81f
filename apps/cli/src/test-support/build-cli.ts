/**
 * Vitest global setup of the CLI's tests: builds `errand` and the packages it
 * uses with turbo (cached: a no-op when nothing changed), because the tests
 * spawn the built `dist/main.js` as a user would.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Builds `@errand/cli` and its workspace dependencies. */
export default function buildCli(): void {
  execFileSync(
    "npx",
    ["turbo", "run", "build", "--filter=@errand/cli...", "--output-logs=errors-only"],
    { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
}
