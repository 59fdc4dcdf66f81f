/**
 * `openaiModel`: a {@link Model} on the official `openai` package, speaking
 * Chat Completions with tools. Works with any OpenAI-compatible server
 * (Ollama, vLLM, LM Studio, …) through `baseURL`. The client's own retries are
 * off: the runtime retries in one place (see `respondWithRetries`), using the
 * classification and `retry-after` this file reads from each failure.
 */
import { ErrandError } from "@errand/core";
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { ModelError } from "./errors.js";
import type { Model, ToolSpec, TranscriptMessage } from "./model.js";
import { readChatCompletion } from "./openai-answer.js";

/**
 * The key sent to a server given by a base URL when no key is: local servers
 * (Ollama, vLLM, …) need none, but the `openai` client refuses to start
 * without one.
 */
export const PLACEHOLDER_API_KEY = "not-needed";

/** What {@link openaiModel} takes. */
export interface OpenAIModelOptions {
  /**
   * Default: `OPENAI_API_KEY`. Without either, a model with a base URL sends
   * {@link PLACEHOLDER_API_KEY}, and one without a base URL cannot be made.
   */
  apiKey?: string;
  /** An OpenAI-compatible server, e.g. `http://localhost:11434/v1`. Default: `OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /** The model to ask, unless the agent names its own. */
  model: string;
  /** A client of your own (its requests are still made with `maxRetries: 0`). */
  client?: OpenAI;
  /** How long one HTTP request may take, in milliseconds. Default: the client's (10 minutes). */
  requestTimeoutMs?: number;
}

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

function createClient(options: OpenAIModelOptions): OpenAI {
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

function encodeArguments(args: unknown): string {
  return typeof args === "string" ? args : (JSON.stringify(args ?? {}) ?? "{}");
}

function toWireMessage(message: TranscriptMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.callId, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content ?? null,
        ...(message.calls.length === 0
          ? {}
          : {
              tool_calls: message.calls.map((call) => ({
                id: call.callId,
                type: "function" as const,
                function: { name: call.name, arguments: encodeArguments(call.args) },
              })),
            }),
      };
  }
}

function toWireTool(spec: ToolSpec): ChatCompletionFunctionTool {
  return {
    type: "function",
    function: {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      strict: spec.strict,
    },
  };
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

/**
 * A {@link Model} on the official `openai` client. Tools are sent as
 * functions, strict where their schema allows; usage is recorded; every
 * request is aborted when the run's signal fires; failures are classified
 * into retryable and non-retryable `ModelError`s. Answers are read tolerantly
 * (a tool call without `type`, no `usage`, …) and a malformed one fails with
 * a `ModelError` naming what is missing (see `openai-answer.ts`).
 *
 * ```ts
 * const model = openaiModel({ model: "gpt-4o-mini" });                 // OPENAI_API_KEY
 * const local = openaiModel({ baseURL: "http://localhost:11434/v1", model: "llama3.1" }); // no key needed
 * ```
 */
export function openaiModel(options: OpenAIModelOptions): Model {
  const client = options.client ?? createClient(options);
  return {
    name: `openai:${options.model}`,
    supportsTools: true,
    async respond(request, signal) {
      const body = {
        model: request.model ?? options.model,
        messages: request.messages.map(toWireMessage),
        ...(request.tools.length === 0 ? {} : { tools: request.tools.map(toWireTool) }),
      };
      let completion: unknown;
      try {
        completion = await client.chat.completions.create(body, {
          signal,
          maxRetries: 0,
          ...(options.requestTimeoutMs === undefined ? {} : { timeout: options.requestTimeoutMs }),
        });
      } catch (error) {
        throw classifyOpenAIError(error);
      }
      return readChatCompletion(completion, request.step);
    },
  };
}
