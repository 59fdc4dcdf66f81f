/**
 * What the tests fire at the fixture agent `scripted-city`: a schema file and
 * inputs whose scripts record an answer, or not.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The fixture agent's name. */
export const SCRIPTED_CITY = "scripted-city";

/** The structured output the tests ask for. */
export const CITY_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"],
  additionalProperties: false,
};

/** Writes {@link CITY_SCHEMA} into `dir` and returns the `@path` argument for `--schema`. */
export async function writeCitySchema(dir: string): Promise<string> {
  const path = join(dir, "city.schema.json");
  await writeFile(path, JSON.stringify(CITY_SCHEMA));
  return `@${path}`;
}

/** An input whose script records `{ city, population }` at once. */
export function recordingInput(city: string, population: number): string {
  return JSON.stringify({
    script: [{ call: [{ tool: "structured_output", args: { city, population } }] }],
  });
}

/** An input whose script ends with text and never records an answer. */
export const SILENT_INPUT = JSON.stringify({ script: [{ say: "I do not know." }] });

/** An input whose script thinks for a minute (to be cancelled) before recording. */
export const SLOW_INPUT = JSON.stringify({
  script: [{ say: "Counting…", sleepMs: 60_000 }, { say: "Done." }],
});
