/**
 * The model the CLI's agents run on (DESIGN §9): without `OPENAI_API_KEY`
 * the built-in scripted model; with it, an OpenAI-compatible model
 * (`OPENAI_BASE_URL` for Ollama, vLLM, LM Studio, …; `ERRAND_MODEL` names it).
 */
import { type Model, openaiModel, scriptedModel } from "@errand/runtime";
import type { CliIO } from "./io.js";

/** The model asked when `ERRAND_MODEL` is not set. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

/** The model for the environment, and a few words saying which it is. */
export function modelFromEnv(env: CliIO["env"]): { model: Model; description: string } {
  const apiKey = env.OPENAI_API_KEY;
  if (apiKey === undefined || apiKey === "") {
    return { model: scriptedModel(), description: "the scripted model (no OPENAI_API_KEY)" };
  }
  const name = env.ERRAND_MODEL || DEFAULT_OPENAI_MODEL;
  const baseURL = env.OPENAI_BASE_URL || undefined;
  return {
    model: openaiModel({ model: name, apiKey, ...(baseURL === undefined ? {} : { baseURL }) }),
    description: `${name} on ${baseURL ?? "OpenAI"}`,
  };
}
