/**
 * `openaiModel`: a {@link Model} on the official `openai` package, speaking
 * Chat Completions (`api: "chat"`, the default) or the Responses API
 * (`api: "responses"`) with tools. Works with any OpenAI-compatible server
 * (Ollama, vLLM, LM Studio, …) through `baseURL`. The client's own retries are
 * off: the runtime retries in one place (see `respondWithRetries`), using the
 * classification and `retry-after` read from each failure (`openai/client.ts`).
 */
import { ErrandError } from "@errand/core";
import type OpenAI from "openai";
import { malformed } from "../answer-fields.js";
import { errorMessage, ModelError } from "../errors.js";
import type { Model, ModelRequest, ModelResponse } from "../model.js";
import type { ModelCapabilities } from "../model-capabilities.js";
import type { ModelSettings } from "../model-settings.js";
import { readChatCompletion } from "./answer.js";
import { chatRequestBody, chatSettingsRefusal } from "./chat.js";
import { chatStreamFold } from "./chat-stream.js";
import { classifyOpenAIError, createClient, providerKeyOf } from "./client.js";
import { readResponse } from "./response-answer.js";
import {
  type ResponsesHistory,
  responsesRequestBody,
  responsesSettingsRefusal,
} from "./responses.js";
import { responsesStreamFold } from "./responses-stream.js";
import { type DeltaListener, type StreamFold, streamedAnswer } from "./stream.js";

/** What {@link openaiModel} takes. */
export interface OpenAIModelOptions {
  /**
   * Default: `OPENAI_API_KEY`. Without either, a model with a base URL sends
   * `PLACEHOLDER_API_KEY`, and one without a base URL cannot be made.
   */
  apiKey?: string;
  /** An OpenAI-compatible server, e.g. `http://localhost:11434/v1`. Default: `OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /** The model to ask, unless the agent names its own. */
  model: string;
  /**
   * The API shape: `chat` (Chat Completions, the default: what most
   * compatible servers speak) or `responses` (the Responses API, which keeps
   * a reasoning model's reasoning between steps).
   */
  api?: "chat" | "responses";
  /**
   * Responses API only: `resend` (default) sends the whole transcript with
   * every request and stores nothing on the server; `previous-response`
   * stores responses and chains each request to the last one by its id.
   */
  history?: ResponsesHistory;
  /** A client of your own (its requests are still made with `maxRetries: 0`). */
  client?: OpenAI;
  /** How long one HTTP request may take, in milliseconds. Default: the client's (10 minutes). */
  requestTimeoutMs?: number;
  /**
   * Ask for the answer as a stream (`stream: true`) and hand its text and
   * tool-argument pieces to the run's live channel as they arrive
   * (`errand.stream`, docs/architecture/redis-layout.md#the-live-channel-streaming). The logged answer is the same either
   * way. Chat Completions asks for usage in the stream
   * (`stream_options.include_usage`). Default false.
   */
  stream?: boolean;
  /**
   * The name its fleet-wide rate limits are shared under (`Model.providerKey`).
   * Default: the client's base URL and a digest of its key (`providerKeyOf`).
   */
  providerKey?: string;
}

/** What each request is sent with. */
interface RequestOptions {
  signal: AbortSignal;
  maxRetries: 0;
  timeout?: number;
}

/** One API shape: how it refuses settings, sends a request and reads an answer. */
interface ApiShape {
  refuseSettings(settings: ModelSettings): string | undefined;
  /** The client's own call for the request: its raw HTTP answer is read below, not the client's parse of it. */
  create(
    client: OpenAI,
    request: ModelRequest,
    model: string,
    options: RequestOptions,
  ): { asResponse(): Promise<Response> };
  /** The same request asked for as a stream of chunks. */
  stream(
    client: OpenAI,
    request: ModelRequest,
    model: string,
    options: RequestOptions,
  ): PromiseLike<AsyncIterable<unknown>>;
  /** A fold of the stream's chunks into the answer `read` takes. */
  fold(onDelta: DeltaListener): StreamFold;
  read(answer: unknown, step: number): ModelResponse;
}

/**
 * The JSON body of a 200 answer. The body is read here rather than by the
 * client, which reshapes a Responses answer (`output_text`) before anyone
 * checks it, and would fail on a malformed one with its own TypeError instead
 * of a `model_error` naming the field.
 */
async function answerBody(response: Response): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new ModelError(`the model's answer was cut off: ${errorMessage(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw malformed("it is not JSON");
  }
}

function apiShape(options: OpenAIModelOptions): ApiShape {
  if (options.api === "responses") {
    const history = options.history ?? "resend";
    return {
      refuseSettings: responsesSettingsRefusal,
      create: (client, request, model, requestOptions) =>
        client.responses.create(responsesRequestBody(request, model, history), requestOptions),
      stream: (client, request, model, requestOptions) =>
        client.responses.create(
          { ...responsesRequestBody(request, model, history), stream: true },
          requestOptions,
        ),
      fold: responsesStreamFold,
      read: readResponse,
    };
  }
  if (options.history !== undefined) {
    throw new ErrandError(
      "invalid_spec",
      'openaiModel: history applies to the Responses API only: pass api: "responses" with it',
    );
  }
  return {
    refuseSettings: chatSettingsRefusal,
    create: (client, request, model, requestOptions) =>
      client.chat.completions.create(chatRequestBody(request, model), requestOptions),
    stream: (client, request, model, requestOptions) =>
      client.chat.completions.create(
        {
          ...chatRequestBody(request, model),
          stream: true,
          stream_options: { include_usage: true },
        },
        requestOptions,
      ),
    fold: chatStreamFold,
    read: readChatCompletion,
  };
}

/**
 * What an OpenAI model honours: every schema of errand's strict subset
 * (strict function calling), forced tool calls; reasoning summaries on the
 * Responses API only (as `refuseSettings` says).
 */
function openaiCapabilities(options: OpenAIModelOptions): ModelCapabilities {
  return {
    provider: "openai",
    modelId: options.model,
    forcesToolCalls: true,
    streaming: true,
    reasoning: true,
    promptCaching: true,
    ...(options.api === "responses"
      ? {}
      : {
          refusedSettings: [
            {
              setting: "reasoning.summary",
              reason:
                'the Chat Completions API has no reasoning summaries: use openaiModel({ api: "responses" })',
            },
          ],
        }),
  };
}

/**
 * A {@link Model} on the official `openai` client. Tools are sent as
 * functions, strict where their schema allows; the agent's model settings
 * are sent under the API's own names, and one the API lacks is refused when
 * the agent is defined (`refuseSettings`); usage is recorded with its cached
 * and reasoning counts; every request is aborted when the run's signal
 * fires; failures are classified into retryable and non-retryable
 * `ModelError`s. Answers are read tolerantly (a tool call without `type`, no
 * `usage`, …) and a malformed one fails with a `ModelError` naming what is
 * missing. On the Responses API each step's output items (reasoning
 * included) are logged and sent back in order on the next request. With
 * `stream`, answers arrive as streams whose pieces go to the run's live
 * channel, and are logged exactly as a non-streamed answer. Throws
 * an `ErrandError` (`invalid_spec`) without a key or a server, and for
 * `history` on the chat API.
 *
 * ```ts
 * const model = openaiModel({ model: "gpt-4o-mini" });                 // OPENAI_API_KEY
 * const reasoner = openaiModel({ model: "o4-mini", api: "responses" }); // reasoning kept across steps
 * const local = openaiModel({ baseURL: "http://localhost:11434/v1", model: "llama3.1" }); // no key needed
 * ```
 */
export function openaiModel(options: OpenAIModelOptions): Model {
  const client = options.client ?? createClient(options);
  const shape = apiShape(options);
  const requestOptions = {
    maxRetries: 0 as const,
    ...(options.requestTimeoutMs === undefined ? {} : { timeout: options.requestTimeoutMs }),
  };
  return {
    name: `openai:${options.model}`,
    supportsTools: true,
    providerKey: options.providerKey ?? providerKeyOf(client),
    refuseSettings: shape.refuseSettings,
    capabilities: openaiCapabilities(options),
    async respond(request, signal) {
      const model = request.model ?? options.model;
      if (options.stream) {
        const chunks = shape.stream(client, request, model, { ...requestOptions, signal });
        return shape.read(await streamedAnswer(chunks, shape.fold(request.onDelta)), request.step);
      }
      let response: Response;
      try {
        response = await shape
          .create(client, request, model, { ...requestOptions, signal })
          .asResponse();
      } catch (error) {
        throw classifyOpenAIError(error);
      }
      return shape.read(await answerBody(response), request.step);
    },
  };
}
