/**
 * Building Chat Completions answers in the shape the real API uses:
 * completions for answer turns (and for a script that ran out), with usage
 * and its cached and reasoning details.
 */
import {
  type AnswerTurn,
  cachedTokens,
  encodeArguments,
  estimateTokens,
  randomId,
  reasoningTokens,
} from "./wire-bodies.js";
import type {
  ChatCompletion,
  ChatCompletionRequest,
  WireToolCall,
  WireUsage,
} from "./wire-types.js";

/**
 * The completion answering `request` with `turn`; `undefined` (the script ran
 * out) answers with empty text and `finish_reason: "stop"`. A request with
 * `reasoning_effort` reports reasoning tokens.
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
  const reasoning = request.reasoning_effort === undefined ? 0 : reasoningTokens(turn);
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
    usage: usageOf(request, estimateTokens(completionText) + reasoning, reasoning),
  };
}

function usageOf(
  request: ChatCompletionRequest,
  completion_tokens: number,
  reasoning_tokens: number,
): WireUsage {
  const prompt_tokens = estimateTokens(JSON.stringify(request.messages));
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_details: {
      cached_tokens: Math.min(prompt_tokens, cachedTokens(request.messages)),
    },
    completion_tokens_details: { reasoning_tokens },
  };
}
