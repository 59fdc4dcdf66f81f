/**
 * Answers as the real APIs stream them (`stream: true`): a built answer cut
 * into server-sent events — Chat Completions `chat.completion.chunk`s ending
 * with `[DONE]` (the usage in a last chunk when `stream_options.include_usage`
 * asks for it), and Responses API events from `response.created` to
 * `response.completed`. Text is cut into words and tool arguments into short
 * pieces, so a streaming client sees many deltas.
 */
import type { ChatCompletion, ResponseObject, ResponsesOutputItem } from "./wire-types.js";

/** One server-sent event. */
export interface SseMessage {
  event?: string;
  data: string;
}

/** How many characters of tool arguments one chunk carries. */
const ARGUMENT_PIECE_LENGTH = 8;

/** `text` cut into words, each with the spaces that follow it. */
function textPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function argumentPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += ARGUMENT_PIECE_LENGTH) {
    pieces.push(text.slice(at, at + ARGUMENT_PIECE_LENGTH));
  }
  return pieces;
}

/** The chunks of `completion`, with its usage in a last chunk when `includeUsage`. */
export function chatChunks(completion: ChatCompletion, includeUsage: boolean): SseMessage[] {
  const { id, created, model } = completion;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseMessage => ({
    data: JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices,
      ...extra,
    }),
  });
  const delta = (fields: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: fields, finish_reason: finish, logprobs: null }]);
  const choice = completion.choices[0];
  const messages = [delta({ role: "assistant", content: "" })];
  for (const text of textPieces(choice?.message.content ?? ""))
    messages.push(delta({ content: text }));
  (choice?.message.tool_calls ?? []).forEach((call, index) => {
    const { name, arguments: args } = call.function;
    messages.push(
      delta({
        tool_calls: [{ index, id: call.id, type: "function", function: { name, arguments: "" } }],
      }),
    );
    for (const piece of argumentPieces(args)) {
      messages.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  messages.push(delta({}, choice?.finish_reason ?? "stop"));
  if (includeUsage) messages.push(chunk([], { usage: completion.usage }));
  return [...messages, { data: "[DONE]" }];
}

/** The events that add `item` at `index`, stream its content, and finish it. */
type StreamEvent = { type: string } & Record<string, unknown>;

function itemEvents(item: ResponsesOutputItem, index: number): StreamEvent[] {
  if (item.type === "message") {
    const text = item.content.map((part) => part.text).join("");
    const where = { item_id: item.id, output_index: index, content_index: 0 };
    const part = { type: "output_text", text: "", annotations: [] };
    return [
      { type: "response.output_item.added", output_index: index, item: { ...item, content: [] } },
      { type: "response.content_part.added", ...where, part },
      ...textPieces(text).map((delta) => ({ type: "response.output_text.delta", ...where, delta })),
      { type: "response.output_text.done", ...where, text },
      { type: "response.content_part.done", ...where, part: { ...part, text } },
      { type: "response.output_item.done", output_index: index, item },
    ];
  }
  if (item.type === "function_call") {
    const where = { item_id: item.id, output_index: index };
    return [
      {
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, arguments: "", status: "in_progress" },
      },
      ...argumentPieces(item.arguments).map((delta) => ({
        type: "response.function_call_arguments.delta",
        ...where,
        delta,
      })),
      { type: "response.function_call_arguments.done", ...where, arguments: item.arguments },
      { type: "response.output_item.done", output_index: index, item },
    ];
  }
  return [
    { type: "response.output_item.added", output_index: index, item },
    { type: "response.output_item.done", output_index: index, item },
  ];
}

/** The events of `response`, numbered, ending with `response.completed`. */
export function responseEvents(response: ResponseObject): SseMessage[] {
  const inProgress = { ...response, status: "in_progress", output: [], usage: null };
  const events: StreamEvent[] = [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
    ...response.output.flatMap(itemEvents),
    { type: "response.completed", response },
  ];
  return events.map((event, sequence_number) => ({
    event: event.type,
    data: JSON.stringify({ ...event, sequence_number }),
  }));
}
