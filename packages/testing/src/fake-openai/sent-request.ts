/**
 * `readSentRequest`: what a client sent, in one form whichever API shape it
 * used — the conversation as chat messages (a Responses request's
 * instructions as the system message, its items as in
 * `responses-conversation.ts`) and the tools by name — so that one test can
 * assert on requests of both shapes.
 */
import { chatMessagesOf } from "./responses-conversation.js";
import type {
  ChatCompletionRequest,
  ResponsesInputItem,
  ResponsesRequest,
  WireMessage,
} from "./wire-types.js";

/** A tool as a request offered it. */
export interface SentTool {
  name: string;
  strict?: boolean;
  parameters?: unknown;
}

/** A request of either API shape, read the same way. */
export interface SentRequest {
  model: string;
  /** The conversation sent (for a chained Responses request, only what came after the response it names). */
  messages: WireMessage[];
  tools: SentTool[];
}

function responsesView(body: ResponsesRequest): SentRequest {
  const input: ResponsesInputItem[] =
    typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  return {
    model: body.model,
    messages: [
      ...(body.instructions ? [{ role: "system", content: body.instructions }] : []),
      ...chatMessagesOf(input),
    ],
    tools: (body.tools ?? []).map(({ name, strict, parameters }) => ({ name, strict, parameters })),
  };
}

function chatView(body: ChatCompletionRequest): SentRequest {
  return {
    model: body.model,
    messages: body.messages,
    tools: (body.tools ?? []).map(({ function: fn }) => ({
      name: fn.name,
      strict: fn.strict,
      parameters: fn.parameters,
    })),
  };
}

/** The request sent to `path` (`/v1/responses`, or a chat completions path) with `body`, read as a {@link SentRequest}. */
export function readSentRequest(path: string, body: unknown): SentRequest {
  return path.endsWith("/responses")
    ? responsesView(body as ResponsesRequest)
    : chatView(body as ChatCompletionRequest);
}
