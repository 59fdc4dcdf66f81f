/**
 * The Responses API side of the fake server's memory. A Responses request is
 * read as its conversation in chat form (instructions as the system message,
 * each run of output items — reasoning, message, function calls — as one
 * assistant message, function-call outputs as tool messages), so that the
 * script player counts its turns exactly as it counts a chat request's. The
 * server remembers what the real API would: the reasoning items it issued
 * (and whether their response was stored), and stored responses, so that
 * `previous_response_id` chains and a reasoning item the API could not
 * resolve is refused as the real API refuses it.
 */
import type {
  ResponseObject,
  ResponsesInputItem,
  ResponsesRequest,
  WireMessage,
  WireToolCall,
} from "./wire-types.js";

/** What the server refuses a request with. */
export interface Refusal {
  status: number;
  message: string;
  param: string | null;
  code: string;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown; refusal?: unknown }) =>
      typeof part?.text === "string"
        ? part.text
        : typeof part?.refusal === "string"
          ? part.refusal
          : "",
    )
    .join("");
}

function isOutputItem(item: ResponsesInputItem): boolean {
  return (
    item.type === "reasoning" ||
    item.type === "function_call" ||
    (item.role === "assistant" && (item.type === undefined || item.type === "message"))
  );
}

/** `items` in chat form: each run of output items becomes one assistant message. */
export function chatMessagesOf(items: readonly ResponsesInputItem[]): WireMessage[] {
  const messages: WireMessage[] = [];
  let answer: { content: string | null; tool_calls: WireToolCall[] } | undefined;
  const flush = () => {
    if (answer === undefined) return;
    const { content, tool_calls } = answer;
    messages.push({ role: "assistant", content, ...(tool_calls.length > 0 ? { tool_calls } : {}) });
    answer = undefined;
  };
  for (const item of items) {
    if (isOutputItem(item)) {
      answer ??= { content: null, tool_calls: [] };
      if (item.type === "function_call") {
        answer.tool_calls.push({
          id: String(item.call_id),
          type: "function",
          function: { name: String(item.name), arguments: String(item.arguments ?? "") },
        });
      } else if (item.type !== "reasoning") {
        answer.content = (answer.content ?? "") + textOf(item.content);
      }
      continue;
    }
    flush();
    if (item.type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: textOf(item.output) });
    } else {
      messages.push({ role: item.role ?? "user", content: textOf(item.content) });
    }
  }
  flush();
  return messages;
}

function inputItems(request: ResponsesRequest): ResponsesInputItem[] {
  return typeof request.input === "string"
    ? [{ role: "user", content: request.input }]
    : request.input;
}

/** The reasoning items, stored responses and encrypted contents the server has issued. */
export class ResponsesMemory {
  private readonly reasoning = new Map<string, { stored: boolean }>();
  private readonly encrypted = new Set<string>();
  private readonly stored = new Map<string, WireMessage[]>();

  /** Why the real API would refuse what `request` refers to, or `undefined`. */
  refusal(request: ResponsesRequest): Refusal | undefined {
    const previous = request.previous_response_id;
    if (previous !== undefined && !this.stored.has(previous)) {
      return {
        status: 400,
        message: `Previous response with id '${previous}' not found.`,
        param: "previous_response_id",
        code: "previous_response_not_found",
      };
    }
    for (const item of inputItems(request)) {
      if (item.type !== "reasoning") continue;
      if (typeof item.encrypted_content === "string" && item.encrypted_content !== "") {
        if (this.encrypted.has(item.encrypted_content)) continue;
        return {
          status: 400,
          message: `The encrypted content of item '${item.id}' could not be verified.`,
          param: "input",
          code: "invalid_encrypted_content",
        };
      }
      if (typeof item.id === "string" && this.reasoning.get(item.id)?.stored) continue;
      return {
        status: 404,
        message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        param: "input",
        code: "item_not_found",
      };
    }
    return undefined;
  }

  /** The conversation of `request` in chat form: the chained responses' conversation first. */
  conversation(request: ResponsesRequest): { model: string; messages: WireMessage[] } {
    const chained = request.previous_response_id;
    const earlier =
      chained === undefined
        ? request.instructions
          ? [{ role: "system", content: request.instructions }]
          : []
        : (this.stored.get(chained) ?? []);
    return { model: request.model, messages: [...earlier, ...chatMessagesOf(inputItems(request))] };
  }

  /** Remembers what `response`, the answer to `request` in `conversation`, issued. */
  remember(request: ResponsesRequest, messages: readonly WireMessage[], response: ResponseObject) {
    const stored = request.store !== false;
    for (const item of response.output) {
      if (item.type !== "reasoning") continue;
      this.reasoning.set(item.id, { stored });
      if (item.encrypted_content !== undefined) this.encrypted.add(item.encrypted_content);
    }
    if (stored) {
      const answer = chatMessagesOf(response.output as ResponsesInputItem[]);
      this.stored.set(response.id, [...messages, ...answer]);
    }
  }
}
