/**
 * Building Responses API answers in the shape the real API uses. A request
 * that asks for reasoning (`reasoning` set) gets a reasoning item first, as a
 * reasoning model gives: with a summary when one was asked for, and with
 * encrypted content when `include` asks for `reasoning.encrypted_content`.
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
  ResponseObject,
  ResponsesOutputItem,
  ResponsesRequest,
  WireMessage,
} from "./wire-types.js";

/** The summary a reasoning item reports when asked for one. */
export const REASONING_SUMMARY = "Working out the next step.";

function reasoningItem(request: ResponsesRequest): ResponsesOutputItem[] {
  if (request.reasoning === undefined) return [];
  const encrypted = request.include?.includes("reasoning.encrypted_content") ?? false;
  return [
    {
      type: "reasoning",
      id: randomId("rs_"),
      summary:
        request.reasoning.summary === undefined
          ? []
          : [{ type: "summary_text", text: REASONING_SUMMARY }],
      ...(encrypted ? { encrypted_content: randomId("enc_") } : {}),
    },
  ];
}

function answerItems(turn: AnswerTurn | undefined): ResponsesOutputItem[] {
  const calls: ResponsesOutputItem[] = (turn?.call ?? []).map((call) => ({
    type: "function_call",
    id: randomId("fc_"),
    call_id: randomId("call_"),
    name: call.tool,
    arguments: encodeArguments(call.args),
    status: "completed",
  }));
  const text = turn?.say ?? (calls.length > 0 ? undefined : "");
  const message: ResponsesOutputItem[] =
    text === undefined
      ? []
      : [
          {
            type: "message",
            id: randomId("msg_"),
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text, annotations: [] }],
          },
        ];
  return [...message, ...calls];
}

/**
 * The response answering `request`, whose conversation in chat form is
 * `messages`, with `turn`; `undefined` (the script ran out) answers with an
 * empty message.
 */
export function buildResponse(
  request: ResponsesRequest,
  messages: readonly WireMessage[],
  turn: AnswerTurn | undefined,
): ResponseObject {
  const output = [...reasoningItem(request), ...answerItems(turn)];
  const inputTokens = estimateTokens(JSON.stringify(messages));
  const reasoning = request.reasoning === undefined ? 0 : reasoningTokens(turn);
  const answerText = (turn?.say ?? "") + JSON.stringify(turn?.call ?? []);
  const outputTokens = estimateTokens(answerText) + reasoning;
  return {
    id: randomId("resp_"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: request.model,
    instructions: request.instructions ?? null,
    output,
    previous_response_id: request.previous_response_id ?? null,
    store: request.store !== false,
    parallel_tool_calls: request.parallel_tool_calls !== false,
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    temperature: typeof request.temperature === "number" ? request.temperature : null,
    error: null,
    incomplete_details: null,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: Math.min(inputTokens, cachedTokens(messages)) },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoning },
      total_tokens: inputTokens + outputTokens,
    },
  };
}
