/**
 * `readChatCompletion`: a Chat Completions answer as a {@link ModelResponse},
 * tolerant of what OpenAI-compatible servers leave out and clear about what
 * they break. The `openai` client does not check the shape of a 200 answer,
 * so every field read here is checked here (the package README has the table):
 *
 * - Tolerated: a tool call without `type` (a function call), without `id`
 *   or with one repeated in the answer (`call_<step>_<n>`), without
 *   `arguments` (`{}`) or with them already parsed; no `usage` or odd token
 *   counts (0); no `finish_reason` (`tool_calls` or `stop`); no content.
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
import type { ToolCall, Usage } from "@errand/core";
import { ModelError } from "./errors.js";
import { decodeToolArguments, type ModelResponse } from "./model.js";

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function malformed(problem: string): ModelError {
  return new ModelError(`the model's answer is malformed: ${problem}`, { retryable: false });
}

/** A text field: `undefined` when absent or `null`; a `ModelError` naming `where` when not text. */
function optionalText(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  throw malformed(`${where} is ${kindOf(value)}, not text`);
}

function tokenCount(value: unknown): number {
  return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : 0;
}

function readUsage(usage: unknown): Usage {
  const counts = isObject(usage) ? usage : {};
  return {
    inputTokens: tokenCount(counts.prompt_tokens),
    outputTokens: tokenCount(counts.completion_tokens),
  };
}

function readArguments(value: unknown): unknown {
  if (value === undefined || value === null || value === "") return {};
  return typeof value === "string" ? decodeToolArguments(value) : value;
}

/** The call's own id, unless it is absent or already taken in this answer. */
function callIdOf(id: unknown, step: number, number: number, taken: Set<string>): string {
  if (typeof id === "string" && id !== "" && !taken.has(id)) return id;
  let generated = `call_${step}_${number}`;
  for (let suffix = 2; taken.has(generated); suffix++)
    generated = `call_${step}_${number}_${suffix}`;
  return generated;
}

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
  const taken = new Set<string>();
  return value.map((entry, index) => {
    const { id, name, args } = readToolCall(entry, index + 1);
    const callId = callIdOf(id, step, index + 1, taken);
    taken.add(callId);
    return { callId, name, args };
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
    usage: readUsage(answer.usage),
    finish: readFinish(choice.finish_reason, calls),
  };
}
