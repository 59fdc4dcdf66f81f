/**
 * The model the CLI's agents run on (docs/architecture/defaults.md): without `OPENAI_API_KEY` or
 * `OPENAI_BASE_URL` the built-in scripted model; with either, an
 * OpenAI-compatible model (`OPENAI_BASE_URL` for Ollama, vLLM, LM Studio, …,
 * which need no key; `ERRAND_MODEL` names it).
 */
import { type Model, openaiModel, readOpenAIEnv, scriptedModel } from "@errand/runtime";
import type { CliIO } from "./io.js";

/** The model asked when `ERRAND_MODEL` is not set. */
const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

/** The model the environment picks. */
export interface ModelChoice {
  model: Model;
  /** A few words saying which model it is, for people. */
  description: string;
  /** True for the built-in scripted model. */
  scripted: boolean;
}

/** The model for the environment; a blank variable counts as unset. */
export function modelFromEnv(env: CliIO["env"]): ModelChoice {
  const { apiKey, baseURL } = readOpenAIEnv(env);
  if (apiKey === undefined && baseURL === undefined) {
    return {
      model: scriptedModel(),
      description: "the scripted model (no OPENAI_API_KEY or OPENAI_BASE_URL)",
      scripted: true,
    };
  }
  const name = env.ERRAND_MODEL || DEFAULT_OPENAI_MODEL;
  return {
    model: openaiModel({
      model: name,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
    }),
    description: `${name} on ${baseURL ?? "OpenAI"}`,
    scripted: false,
  };
}
