/**
 * The repository's golden histories (`test/golden/`): saved run logs beside
 * the RunResult each must settle to.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The folder of the golden histories. */
const GOLDEN_DIR = fileURLToPath(new URL("../../../../test/golden/", import.meta.url));

/** One history's files. */
export interface GoldenFiles {
  name: string;
  eventsPath: string;
  resultPath: string;
}

/** Every golden history's files, sorted by name. */
export function goldenFiles(): GoldenFiles[] {
  return readdirSync(GOLDEN_DIR)
    .filter((file) => file.endsWith(".events.json"))
    .sort()
    .map((file) => {
      const name = file.slice(0, -".events.json".length);
      return {
        name,
        eventsPath: `${GOLDEN_DIR}${file}`,
        resultPath: `${GOLDEN_DIR}${name}.result.json`,
      };
    });
}
