/**
 * Loads the golden histories of this folder: each `<name>.events.json` (a
 * run's log, as written) beside its `<name>.result.json` (the RunResult that
 * log must settle to). Plain ESM so that both the vitest suite and the
 * `replay.mjs` demo script read the histories the same way.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrandError } from "@errand/core";

/** The folder that holds the golden histories. */
const GOLDEN_DIR = fileURLToPath(new URL(".", import.meta.url));

const EVENTS_SUFFIX = ".events.json";
const RESULT_SUFFIX = ".result.json";

/** @param {string} path */
function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

/**
 * Every golden history in `dir`, sorted by name.
 * @param {string} [dir]
 * @returns {{ name: string, events: unknown[], expected: unknown }[]}
 */
export function loadGoldenHistories(dir = GOLDEN_DIR) {
  const files = readdirSync(dir);
  const names = files
    .filter((file) => file.endsWith(EVENTS_SUFFIX))
    .map((file) => file.slice(0, -EVENTS_SUFFIX.length))
    .sort();
  return names.map((name) => {
    if (!files.includes(name + RESULT_SUFFIX)) {
      throw new ErrandError(
        "not_found",
        `golden history ${name} has no ${name}${RESULT_SUFFIX}: commit the expected RunResult beside its events`,
      );
    }
    const events = readJson(join(dir, name + EVENTS_SUFFIX));
    if (!Array.isArray(events)) {
      throw new ErrandError("invalid_event", `${name}${EVENTS_SUFFIX} must hold a JSON array`);
    }
    return { name, events, expected: readJson(join(dir, name + RESULT_SUFFIX)) };
  });
}
