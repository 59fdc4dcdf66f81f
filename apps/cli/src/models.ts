/**
 * The model the CLI's agents run on (docs/architecture/defaults.md), picked by `ERRAND_MODEL`:
 *
 * - `anthropic/<model>`: Claude on `@ai-sdk/anthropic`, with
 *   `ANTHROPIC_API_KEY` (and `ANTHROPIC_BASE_URL` for another server);
 * - `google/<model>`: Gemini on `@ai-sdk/google`, with
 *   `GOOGLE_GENERATIVE_AI_API_KEY` (and `GOOGLE_GENERATIVE_AI_BASE_URL`);
 * - `openai/<model>`, or a bare name: the native `openaiModel`, with
 *   `OPENAI_API_KEY` or `OPENAI_BASE_URL` (Ollama, vLLM, LM Studio, …, need no key);
 * - a bare name or none, without `OPENAI_API_KEY` or `OPENAI_BASE_URL`:
 *   the built-in scripted model.
 *
 * The AI SDK packages are loaded only when picked. A provider picked without
 * its key is refused here, naming the variable, before anything starts.
 */
import { ErrandError } from "@errand/core";
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

/** A provider the CLI can pick, and the variables it reads. */
export interface ProviderVariables {
  provider: "anthropic" | "google" | "openai";
  model: string;
  keyVariable: string;
  baseURLVariable: string;
}

type Env = CliIO["env"];

const read = (env: Env, name: string) => env[name]?.trim() || undefined;

/**
 * The provider and model `ERRAND_MODEL` names (`anthropic/…`, `google/…`,
 * `openai/…` or a bare OpenAI-compatible name), with its variables;
 * `undefined` when it is unset.
 */
export function providerOf(env: Env): ProviderVariables | undefined {
  const named = read(env, "ERRAND_MODEL");
  if (named === undefined) return undefined;
  const slash = named.indexOf("/");
  const prefix = slash < 0 ? "" : named.slice(0, slash);
  const model = named.slice(slash + 1);
  if (prefix === "anthropic") {
    return {
      provider: "anthropic",
      model,
      keyVariable: "ANTHROPIC_API_KEY",
      baseURLVariable: "ANTHROPIC_BASE_URL",
    };
  }
  if (prefix === "google") {
    return {
      provider: "google",
      model,
      keyVariable: "GOOGLE_GENERATIVE_AI_API_KEY",
      baseURLVariable: "GOOGLE_GENERATIVE_AI_BASE_URL",
    };
  }
  return {
    provider: "openai",
    model: prefix === "openai" ? model : named,
    keyVariable: "OPENAI_API_KEY",
    baseURLVariable: "OPENAI_BASE_URL",
  };
}

/** The AI SDK model of an Anthropic or Google choice, its key checked. */
async function aiSdkChoice(env: Env, choice: ProviderVariables): Promise<ModelChoice> {
  const apiKey = read(env, choice.keyVariable);
  const baseURL = read(env, choice.baseURLVariable);
  if (apiKey === undefined) {
    throw new ErrandError(
      "invalid_spec",
      `ERRAND_MODEL picks ${choice.provider}, but ${choice.keyVariable} is not set: set it to your ${choice.provider} API key`,
    );
  }
  const settings = { apiKey, ...(baseURL === undefined ? {} : { baseURL }) };
  const { aiSdkModel } = await import("@errand/ai-sdk");
  const languageModel =
    choice.provider === "anthropic"
      ? (await import("@ai-sdk/anthropic")).createAnthropic(settings)(choice.model)
      : (await import("@ai-sdk/google")).createGoogleGenerativeAI(settings)(choice.model);
  return {
    model: aiSdkModel(languageModel, { providerKey: `${choice.provider}:${baseURL ?? "default"}` }),
    description: `${choice.model} on ${baseURL ?? choice.provider}`,
    scripted: false,
  };
}

/** The model for the environment; a blank variable counts as unset. */
export async function modelFromEnv(env: Env): Promise<ModelChoice> {
  const choice = providerOf(env);
  if (choice !== undefined && choice.provider !== "openai") return aiSdkChoice(env, choice);
  const { apiKey, baseURL } = readOpenAIEnv(env);
  if (apiKey === undefined && baseURL === undefined) {
    if (read(env, "ERRAND_MODEL")?.startsWith("openai/")) {
      throw new ErrandError(
        "invalid_spec",
        "ERRAND_MODEL picks openai, but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set: set your OpenAI API key, or the base URL of a compatible server",
      );
    }
    return {
      model: scriptedModel(),
      description: "the scripted model (no ERRAND_MODEL, OPENAI_API_KEY or OPENAI_BASE_URL)",
      scripted: true,
    };
  }
  const name = choice?.model ?? DEFAULT_OPENAI_MODEL;
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
