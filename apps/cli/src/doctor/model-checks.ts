/**
 * The doctor's model check: which provider and model `ERRAND_MODEL` picks
 * for the CLI's agents (`errand demo`, `errand up`), and whether the
 * provider's API key is set in this environment — the refusal a worker
 * would give at start, before it takes a run, said ahead.
 */
import type { CliIO } from "../io.js";
import { providerOf } from "../models.js";
import { type DoctorCheck, passed, problem } from "./check.js";

const NAME = "model";

/** The check of the model the environment picks. */
export function checkModel(env: CliIO["env"]): DoctorCheck {
  const choice = providerOf(env);
  const has = (name: string) => Boolean(env[name]?.trim());
  if (choice === undefined) {
    if (has("OPENAI_API_KEY") || has("OPENAI_BASE_URL")) {
      return passed(NAME, "openai, gpt-4o-mini (the default; ERRAND_MODEL picks another)");
    }
    return passed(NAME, "the scripted model: ERRAND_MODEL is not set, nor OPENAI_API_KEY");
  }
  const { provider, model, keyVariable, baseURLVariable } = choice;
  const where = has(baseURLVariable) ? ` at ${baseURLVariable}` : "";
  const keyless = provider === "openai" && has(baseURLVariable);
  if (has(keyVariable) || keyless) {
    const key = has(keyVariable) ? `${keyVariable} set` : "no key needed";
    return passed(NAME, `${provider}, ${model}${where}; ${key}`);
  }
  return problem(
    NAME,
    `${provider}, ${model}${where}; ${keyVariable} is not set, so a worker on it refuses to start`,
    `set ${keyVariable} to your ${provider} API key`,
  );
}
