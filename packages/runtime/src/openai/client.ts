/**
 * The `openai` client as errand uses it: made from options or the
 * environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`), with its own retries
 * off, and its failures classified into retryable and non-retryable
 * `ModelError`s carrying the `retry-after` the server sent. Both API shapes
 * of `openaiModel` share it.
 */
import { createHash } from "node:crypto";
import { ErrandError } from "@errand/core";
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { ModelError } from "../errors.js";

/**
 * The key sent to a server given by a base URL when no key is: local servers
 * (Ollama, vLLM, …) need none, but the `openai` client refuses to start
 * without one.
 */
export const PLACEHOLDER_API_KEY = "not-needed";

/** The OpenAI settings an environment gives, read as the `openai` client reads them. */
export interface OpenAIEnv {
  /** `OPENAI_API_KEY`, trimmed; `undefined` when unset or blank. */
  apiKey?: string;
  /** `OPENAI_BASE_URL`, trimmed; `undefined` when unset or blank. */
  baseURL?: string;
}

type Environment = Readonly<Record<string, string | undefined>>;

function readVariable(env: Environment, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

/**
 * `OPENAI_API_KEY` and `OPENAI_BASE_URL` of `env`, a blank one counting as
 * unset. Either is enough for {@link openaiModel}: a base URL alone (a local
 * server) is sent {@link PLACEHOLDER_API_KEY}.
 */
export function readOpenAIEnv(env: Environment = process.env): OpenAIEnv {
  const apiKey = readVariable(env, "OPENAI_API_KEY");
  const baseURL = readVariable(env, "OPENAI_BASE_URL");
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
  };
}

/** Where a client goes and what key it sends: each defaults to the environment. */
export interface OpenAIConnection {
  apiKey?: string;
  baseURL?: string;
}

/**
 * An `openai` client without retries of its own (the runtime retries in one
 * place). The key is `apiKey`, else `OPENAI_API_KEY`, else, for a server given
 * by a base URL, {@link PLACEHOLDER_API_KEY}; without a key or a server it
 * throws an `ErrandError` (`invalid_spec`).
 */
export function createClient(options: OpenAIConnection): OpenAI {
  const env = readOpenAIEnv();
  const baseURL = options.baseURL ?? env.baseURL;
  const apiKey =
    options.apiKey ?? env.apiKey ?? (baseURL === undefined ? undefined : PLACEHOLDER_API_KEY);
  if (apiKey === undefined) {
    throw new ErrandError(
      "invalid_spec",
      "openaiModel needs an API key or a server: pass apiKey or baseURL, or set OPENAI_API_KEY or OPENAI_BASE_URL",
    );
  }
  return new OpenAI({ apiKey, ...(baseURL === undefined ? {} : { baseURL }), maxRetries: 0 });
}

/** How many hex digits of the key's SHA-256 name it in a provider key: enough to tell keys apart, never the key. */
const KEY_DIGEST_LENGTH = 12;

/**
 * The provider key of a client: its base URL and a digest of its API key
 * (`<baseURL>#<12 hex digits>`), so that models on one server under one key
 * share their rate limits, and the key itself is never written anywhere.
 */
export function providerKeyOf(client: OpenAI): string {
  const digest = createHash("sha256")
    .update(client.apiKey ?? "")
    .digest("hex");
  return `${client.baseURL}#${digest.slice(0, KEY_DIGEST_LENGTH)}`;
}

/**
 * The wait a failed response asks for: `retry-after-ms`, else `retry-after`
 * in seconds or as an HTTP date; `undefined` when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const millis = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(millis)) return Math.max(0, millis);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isRetryableStatus(status: number, headers: Headers | undefined): boolean {
  const hint = headers?.get("x-should-retry");
  if (hint === "true") return true;
  if (hint === "false") return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * An `openai` client error as a `ModelError`: rate limits (429), timeouts
 * (408), conflicts (409), server errors (5xx) and lost connections are
 * retryable, with the `retry-after` the server sent; anything else (bad
 * request, authentication, unknown model) is not. An abort is returned as is.
 */
export function classifyOpenAIError(error: unknown): unknown {
  if (error instanceof APIUserAbortError) return error;
  if (error instanceof APIConnectionError) {
    return new ModelError(`the model server could not be reached: ${error.message}`, {
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const headers = error.headers instanceof Headers ? error.headers : undefined;
    const wait = retryAfterMs(headers);
    return new ModelError(`the model request failed: ${error.message}`, {
      retryable: isRetryableStatus(error.status, headers),
      status: error.status,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
      cause: error,
    });
  }
  return error;
}
