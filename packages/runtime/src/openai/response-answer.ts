/**
 * `readResponse`: a Responses API answer as a {@link ModelResponse}, read by
 * the same rules as a Chat Completions answer (see `openai/answer.ts` and the
 * package README's table): tolerant where the meaning is plain, a
 * non-retryable `ModelError` naming the field where it is not.
 *
 * - Read: `message` items (their `output_text` and `refusal` parts, or a
 *   plain text `content`), `function_call` items (a call without `call_id`,
 *   or with one repeated, gets `call_<step>_<n>`; absent arguments are `{}`),
 *   `reasoning` items (their summary texts and encrypted content), `usage`
 *   with its cached and reasoning counts, the response `id`.
 * - Refused: an answer that is not an object, no `output` list, an item
 *   that is not an object, a function call without a name, an item of any
 *   other type (a built-in tool call errand never offered: never dropped
 *   silently), a status other than `completed` or `incomplete`.
 * - A response whose `status` is `failed` is a `ModelError`, retryable when
 *   its error code is `server_error` or `rate_limit_exceeded`.
 *
 * The items are kept, in order, for the next request (`ModelResponse.items`)
 * when any of them has something to send back: an id, a phase, or reasoning.
 */
import type { OutputItem, ToolCall } from "@errand/core";
import {
  CallIds,
  type Fields,
  isObject,
  kindOf,
  malformed,
  nonEmptyText,
  optionalText,
  readArguments,
  readUsage,
} from "../answer-fields.js";
import { ModelError } from "../errors.js";
import type { ModelResponse } from "../model.js";

const RESPONSES_USAGE = {
  input: "input_tokens",
  output: "output_tokens",
  inputDetails: "input_tokens_details",
  outputDetails: "output_tokens_details",
};

const RETRYABLE_FAILURES = new Set(["server_error", "rate_limit_exceeded"]);

/** What reading the output items gathers. */
interface Gathered {
  items: OutputItem[];
  texts: string[];
  calls: ToolCall[];
}

/** An optional `id` of an item, as an `OutputItem` field. */
function idField(item: Fields): { id?: string } {
  const id = nonEmptyText(item.id);
  return id === undefined ? {} : { id };
}

function summaryTexts(summary: unknown): string[] {
  if (!Array.isArray(summary)) return [];
  return summary.flatMap((part) =>
    isObject(part) && typeof part.text === "string" ? [part.text] : [],
  );
}

function readReasoning(item: Fields): OutputItem {
  const encryptedContent = nonEmptyText(item.encrypted_content);
  return {
    type: "reasoning",
    ...idField(item),
    summary: summaryTexts(item.summary),
    ...(encryptedContent === undefined ? {} : { encryptedContent }),
  };
}

/** The text of a message item: its `output_text` and `refusal` parts joined, or a text `content`. */
function messageText(item: Fields, where: string): string {
  const { content } = item;
  if (typeof content === "string") return content;
  if (content === undefined || content === null) return "";
  if (!Array.isArray(content))
    throw malformed(`${where}.content is ${kindOf(content)}, not a list`);
  return content
    .map((part, index) => {
      if (!isObject(part)) return "";
      const field = part.type === "refusal" ? "refusal" : "text";
      return optionalText(part[field], `${where}.content[${index}].${field}`) ?? "";
    })
    .join("");
}

function readMessage(item: Fields, where: string, gathered: Gathered): void {
  const phase = nonEmptyText(item.phase);
  gathered.texts.push(messageText(item, where));
  gathered.items.push({ type: "message", ...idField(item), ...(phase ? { phase } : {}) });
}

function readFunctionCall(item: Fields, where: string, ids: CallIds, gathered: Gathered): void {
  const name = nonEmptyText(item.name);
  if (name === undefined) throw malformed(`${where} is a function call without a name`);
  const callId = ids.next(item.call_id, gathered.calls.length + 1);
  gathered.calls.push({ callId, name, args: readArguments(item.arguments) });
  gathered.items.push({ type: "function_call", ...idField(item), callId });
}

function readOutput(output: unknown, step: number): Gathered {
  if (!Array.isArray(output)) throw malformed("it has no output list");
  const gathered: Gathered = { items: [], texts: [], calls: [] };
  const ids = new CallIds(step);
  output.forEach((item, index) => {
    const where = `output item ${index + 1}`;
    if (!isObject(item)) throw malformed(`${where} is ${kindOf(item)}, not an object`);
    if (item.type === "reasoning") gathered.items.push(readReasoning(item));
    else if (item.type === "message") readMessage(item, where, gathered);
    else if (item.type === "function_call") readFunctionCall(item, where, ids, gathered);
    else {
      throw malformed(
        `${where} is of type ${JSON.stringify(item.type)}: only messages, reasoning and function calls can be read`,
      );
    }
  });
  return gathered;
}

/** A failed response as the error it reports. */
function failure(error: unknown): ModelError {
  const fields = isObject(error) ? error : {};
  const code = nonEmptyText(fields.code);
  const message = nonEmptyText(fields.message) ?? "no reason given";
  return new ModelError(`the model's response failed: ${message}`, {
    retryable: code !== undefined && RETRYABLE_FAILURES.has(code),
  });
}

function readFinish(answer: Fields, calls: readonly ToolCall[]): string {
  if (calls.length > 0) return "tool_calls";
  if (answer.status !== "incomplete") return "stop";
  const reason = isObject(answer.incomplete_details)
    ? nonEmptyText(answer.incomplete_details.reason)
    : undefined;
  return reason === "max_output_tokens" ? "length" : (reason ?? "incomplete");
}

/** The items worth logging: all of them when one has an id, a phase or is reasoning; else none. */
function itemsToKeep(items: OutputItem[]): OutputItem[] | undefined {
  const carries = items.some(
    (item) => item.type === "reasoning" || item.id !== undefined || "phase" in item,
  );
  return carries ? items : undefined;
}

/** Gives each message item its own text when the step's text joins several messages. */
function withOwnTexts(items: OutputItem[], texts: readonly string[]): OutputItem[] {
  if (texts.length < 2) return items;
  let next = 0;
  return items.map((item) => (item.type === "message" ? { ...item, text: texts[next++] } : item));
}

/**
 * The {@link ModelResponse} in `answer`, the body of a 200 answer to a
 * Responses API request made for `step` (generated call ids carry it). Throws
 * a `ModelError` for a malformed answer (naming the first field it cannot
 * read) and for a failed response.
 */
export function readResponse(answer: unknown, step: number): ModelResponse {
  if (!isObject(answer)) throw malformed(`it is ${kindOf(answer)}, not a JSON object`);
  const { status } = answer;
  if (status === "failed") throw failure(answer.error);
  if (status !== undefined && status !== "completed" && status !== "incomplete") {
    throw malformed(`its status is ${JSON.stringify(status)}, not completed`);
  }
  const { items, texts, calls } = readOutput(answer.output, step);
  const kept = itemsToKeep(withOwnTexts(items, texts));
  const responseId = nonEmptyText(answer.id);
  return {
    ...(texts.length === 0 ? {} : { text: texts.join("") }),
    calls,
    usage: readUsage(answer.usage, RESPONSES_USAGE),
    finish: readFinish(answer, calls),
    ...(kept === undefined ? {} : { items: kept }),
    ...(responseId === undefined ? {} : { responseId }),
  };
}
