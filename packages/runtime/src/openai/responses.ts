/**
 * A model request as a Responses API body. The system message becomes
 * `instructions`; each earlier step is sent back as the output items it
 * logged, in their order — reasoning items (with their encrypted content when
 * responses are not stored), messages and function calls with the ids the
 * provider gave them — followed by the tool results. Because those items come
 * from the run's log, a run resumed on another worker sends exactly what an
 * uninterrupted run would.
 *
 * Two ways of keeping the conversation (`history`):
 * - `resend` (default): nothing is stored on the server (`store: false`); every
 *   request carries the whole transcript. An agent with `reasoning` settings
 *   asks for `reasoning.encrypted_content`, so its reasoning goes back too.
 * - `previous-response`: responses are stored (`store: true`) and each
 *   request names the last one (`previous_response_id`, logged as the step's
 *   `responseId`) and carries only what came after it: the tool results.
 */

import type { OutputItem, ToolCall } from "@errand/core";
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import { encodeToolArguments, type ModelRequest, type TranscriptMessage } from "../model.js";
import type { ModelSettings } from "../model-settings.js";
import type { ToolSpec } from "../tool-spec.js";

/** How a Responses model keeps the conversation between requests (see the module). */
export type ResponsesHistory = "resend" | "previous-response";

/** The smallest `max_output_tokens` the Responses API takes. */
const MIN_OUTPUT_TOKENS = 16;

/** Why the Responses API cannot honour `settings`, or `undefined`. */
export function responsesSettingsRefusal(settings: ModelSettings): string | undefined {
  const { maxOutputTokens } = settings;
  return maxOutputTokens !== undefined && maxOutputTokens < MIN_OUTPUT_TOKENS
    ? `the Responses API takes a maxOutputTokens of ${MIN_OUTPUT_TOKENS} or more, not ${maxOutputTokens}`
    : undefined;
}

type AssistantMessage = Extract<TranscriptMessage, { role: "assistant" }>;
type ReasoningItem = Extract<OutputItem, { type: "reasoning" }>;
type MessageItem = Extract<OutputItem, { type: "message" }>;

/**
 * A logged reasoning item as input, or `undefined` when the server could not
 * resolve it: without encrypted content, only a stored response's item can be
 * named by its id (an unstored one is refused as not found).
 */
function reasoningInput(item: ReasoningItem, stored: boolean): ResponseInputItem | undefined {
  if (item.encryptedContent === undefined && !(stored && item.id !== undefined)) return undefined;
  return {
    type: "reasoning",
    ...(item.id === undefined ? {} : { id: item.id }),
    summary: item.summary.map((text) => ({ type: "summary_text" as const, text })),
    ...(item.encryptedContent === undefined ? {} : { encrypted_content: item.encryptedContent }),
  } as ResponseInputItem;
}

function messageInput(text: string, item?: MessageItem): ResponseInputItem {
  if (item?.id === undefined) return { role: "assistant", content: text };
  return {
    type: "message",
    role: "assistant",
    id: item.id,
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
    ...(item.phase === undefined ? {} : { phase: item.phase as "commentary" | "final_answer" }),
  };
}

function functionCallInput(call: ToolCall, id?: string): ResponseInputItem {
  return {
    type: "function_call",
    call_id: call.callId,
    name: call.name,
    arguments: encodeToolArguments(call.args),
    ...(id === undefined ? {} : { id }),
  };
}

/** A step's output as input items: its logged items in order, else its text then its calls. */
function assistantInput(message: AssistantMessage, stored: boolean): ResponseInputItem[] {
  if (message.items === undefined) {
    return [
      ...(message.content ? [messageInput(message.content)] : []),
      ...message.calls.map((call) => functionCallInput(call)),
    ];
  }
  const calls = new Map(message.calls.map((call) => [call.callId, call]));
  const input: ResponseInputItem[] = [];
  for (const item of message.items) {
    if (item.type === "reasoning") {
      const reasoning = reasoningInput(item, stored);
      if (reasoning) input.push(reasoning);
    } else if (item.type === "message") {
      input.push(messageInput(item.text ?? message.content ?? "", item));
    } else {
      const call = calls.get(item.callId);
      calls.delete(item.callId);
      if (call) input.push(functionCallInput(call, item.id));
    }
  }
  return [...input, ...[...calls.values()].map((call) => functionCallInput(call))];
}

function messageInputs(message: TranscriptMessage, stored: boolean): ResponseInputItem[] {
  switch (message.role) {
    case "system":
      return [];
    case "user":
      return [{ role: "user", content: message.content }];
    case "tool":
      return [{ type: "function_call_output", call_id: message.callId, output: message.content }];
    case "assistant":
      return assistantInput(message, stored);
  }
}

/** The transcript as input items; the system message travels as `instructions`. */
function inputItems(messages: readonly TranscriptMessage[], stored: boolean): ResponseInputItem[] {
  return messages.flatMap((message) => messageInputs(message, stored));
}

/** The last response a chained request can name, and where it is in the transcript. */
function chainPoint(messages: readonly TranscriptMessage[]) {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === "assistant" && message.responseId !== undefined) {
      return { index, responseId: message.responseId };
    }
  }
  return undefined;
}

function toWireTool(spec: ToolSpec): FunctionTool {
  return {
    type: "function",
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    strict: spec.strict,
  };
}

/** The settings under their Responses API names; none is left out. */
function settingsFields(settings: ModelSettings): Partial<ResponseCreateParamsNonStreaming> {
  const { reasoning, temperature, topP, maxOutputTokens, parallelToolCalls, toolChoice } = settings;
  return {
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { top_p: topP }),
    ...(maxOutputTokens === undefined ? {} : { max_output_tokens: maxOutputTokens }),
    ...(parallelToolCalls === undefined ? {} : { parallel_tool_calls: parallelToolCalls }),
    ...(toolChoice === undefined
      ? {}
      : {
          tool_choice:
            typeof toolChoice === "string"
              ? toolChoice
              : { type: "function", name: toolChoice.name },
        }),
  };
}

/** The Responses API body for `request`, asking `model`, keeping the conversation by `history`. */
export function responsesRequestBody(
  request: ModelRequest,
  model: string,
  history: ResponsesHistory,
): ResponseCreateParamsNonStreaming {
  const stored = history === "previous-response";
  const chained = stored ? chainPoint(request.messages) : undefined;
  const sent = chained ? request.messages.slice(chained.index + 1) : request.messages;
  const instructions = request.messages
    .flatMap((message) => (message.role === "system" ? [message.content] : []))
    .join("\n\n");
  const encrypted = !stored && request.settings.reasoning !== undefined;
  return {
    model,
    ...(instructions === "" ? {} : { instructions }),
    input: inputItems(sent, stored),
    ...(chained ? { previous_response_id: chained.responseId } : {}),
    store: stored,
    ...(encrypted ? { include: ["reasoning.encrypted_content" as const] } : {}),
    ...(request.tools.length === 0 ? {} : { tools: request.tools.map(toWireTool) }),
    ...settingsFields(request.settings),
  };
}
