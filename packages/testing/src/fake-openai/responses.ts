/**
 * Building response bodies in the shape the real Chat Completions API uses:
 * completions for answer turns (and for a script that ran out), error bodies
 * for fail turns and bad requests.
 */
import { randomBytes } from "node:crypto";
import type { ScriptTurn } from "@errand/core";
import type {
  ChatCompletion,
  ChatCompletionRequest,
  WireErrorBody,
  WireToolCall,
  WireUsage,
} from "./wire-types.js";

/** A turn that answers (as opposed to one that fails). */
export type AnswerTurn = Exclude<ScriptTurn, { fail: string }>;

/** A deterministic token estimate: one token per four characters, rounded up. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("base64url")}`;
}

/** Tool arguments as the API sends them: a JSON string. A string in the script is sent verbatim (to test malformed arguments). */
function encodeArguments(args: unknown): string {
  return typeof args === "string" ? args : JSON.stringify(args ?? {});
}

/**
 * The completion answering `request` with `turn`; `undefined` (the script ran
 * out) answers with empty text and `finish_reason: "stop"`.
 */
export function buildCompletion(
  request: ChatCompletionRequest,
  turn: AnswerTurn | undefined,
): ChatCompletion {
  const toolCalls: WireToolCall[] = (turn?.call ?? []).map((call) => ({
    id: randomId("call_"),
    type: "function",
    function: { name: call.tool, arguments: encodeArguments(call.args) },
  }));
  const content = turn?.say ?? (toolCalls.length > 0 ? null : "");
  const completionText =
    (content ?? "") +
    toolCalls.map((call) => call.function.name + call.function.arguments).join("");
  const usage = usageOf(JSON.stringify(request.messages), completionText);
  return {
    id: randomId("chatcmpl-"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage,
  };
}

function usageOf(promptText: string, completionText: string): WireUsage {
  const prompt_tokens = estimateTokens(promptText);
  const completion_tokens = estimateTokens(completionText);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** The `type` and `code` the real API puts in an error of this status. */
function errorKind(status: number): { type: string; code: string } {
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status >= 500) return { type: "server_error", code: "server_error" };
  return { type: "invalid_request_error", code: "invalid_request" };
}

/** An OpenAI-style error body for `status`; `code` overrides the usual one for that status. */
export function buildError(
  status: number,
  message: string,
  options: { param?: string | null; code?: string } = {},
): WireErrorBody {
  const kind = errorKind(status);
  return {
    error: {
      message,
      type: kind.type,
      param: options.param ?? null,
      code: options.code ?? kind.code,
    },
  };
}
