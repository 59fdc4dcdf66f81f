/**
 * `readChatCompletion`: a Chat Completions answer as a {@link ModelResponse},
 * tolerant of what OpenAI-compatible servers leave out and clear about what
 * they break. The `openai` client does not check the shape of a 200 answer,
 * so every field read here is checked here (the package README has the table):
 *
 * - Tolerated: a tool call without `type` (a function call), without `id`
 *   or with one repeated in the answer (`call_<step>_<n>`), without
 *   `arguments` (`{}`) or with them already parsed; no `usage` or odd token
 *   counts (0; the cached and reasoning counts of `prompt_tokens_details` and
 *   `completion_tokens_details` only when reported); no `finish_reason`
 *   (`tool_calls` or `stop`); no content.
 * - Refused with a `ModelError` naming the field: an answer that is not an
 *   object, no choices, no message, content or refusal that is not text,
 *   `tool_calls` that is not a list, a tool call of another type than
 *   `function` (never dropped silently), without a function or its name.
 *
 * A malformed answer is not retryable: the same server is expected to answer
 * the same request in the same shape, so the run fails `model_error` at once.
 * Arguments are never refused here: the run's validation refuses those that
 * do not fit the tool, and the model is told why.
 */
import type { ToolCall } from "@errand/core";
import {
  CallIds,
  isObject,
  kindOf,
  malformed,
  optionalText,
  readArguments,
  readUsage,
} from "../answer-fields.js";
import type { ModelResponse } from "../model.js";

const CHAT_USAGE = {
  input: "prompt_tokens",
  output: "completion_tokens",
  inputDetails: "prompt_tokens_details",
  outputDetails: "completion_tokens_details",
};

function readToolCall(
  entry: unknown,
  number: number,
): { id: unknown; name: string; args: unknown } {
  const call = `tool call ${number}`;
  if (!isObject(entry)) throw malformed(`${call} is ${kindOf(entry)}, not an object`);
  if (entry.type !== undefined && entry.type !== "function") {
    throw malformed(
      `${call} is of type ${JSON.stringify(entry.type)}: only function calls can be run`,
    );
  }
  const fn = entry.function;
  if (!isObject(fn)) throw malformed(`${call} has no function`);
  if (typeof fn.name !== "string" || fn.name === "")
    throw malformed(`${call} has no function name`);
  return { id: entry.id, name: fn.name, args: readArguments(fn.arguments) };
}

function readToolCalls(value: unknown, step: number): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw malformed(`choices[0].message.tool_calls is ${kindOf(value)}, not a list`);
  }
  const ids = new CallIds(step);
  return value.map((entry, index) => {
    const { id, name, args } = readToolCall(entry, index + 1);
    return { callId: ids.next(id, index + 1), name, args };
  });
}

function readFinish(value: unknown, calls: readonly ToolCall[]): string {
  if (typeof value === "string") return value;
  return calls.length > 0 ? "tool_calls" : "stop";
}

/**
 * The {@link ModelResponse} in `answer`, the body of a 200 answer to a Chat
 * Completions request made for `step` (generated call ids carry it). Throws a
 * non-retryable `ModelError` naming the first field it cannot read.
 */
export function readChatCompletion(answer: unknown, step: number): ModelResponse {
  if (!isObject(answer)) throw malformed(`it is ${kindOf(answer)}, not a JSON object`);
  const { choices } = answer;
  if (!Array.isArray(choices) || choices.length === 0) throw malformed("it has no choices");
  const choice: unknown = choices[0];
  if (!isObject(choice)) throw malformed(`choices[0] is ${kindOf(choice)}, not an object`);
  const { message } = choice;
  if (!isObject(message)) throw malformed("choices[0] has no message");
  const text =
    optionalText(message.content, "choices[0].message.content") ??
    optionalText(message.refusal, "choices[0].message.refusal");
  const calls = readToolCalls(message.tool_calls, step);
  return {
    ...(text === undefined ? {} : { text }),
    calls,
    usage: readUsage(answer.usage, CHAT_USAGE),
    finish: readFinish(choice.finish_reason, calls),
  };
}
