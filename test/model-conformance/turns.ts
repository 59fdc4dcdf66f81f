/**
 * A scenario's model turns, written once for every server: what the model
 * says, which tools it calls, or how its request fails. Each server lane
 * turns them into what its server plays: script turns for the fake server,
 * exact wire bodies for `@dwmkerr/mock-llm` (below, written here by hand from
 * the APIs' documented shapes, not by the fake server's code).
 */
import type { ScriptTurn } from "@errand/core";

/** One tool call of a turn. */
interface TurnCall {
  tool: string;
  args: unknown;
}

/** One model request's outcome. */
export type Turn =
  | { say?: string; call?: TurnCall[] }
  | { fail: string; status: number; retryAfterSeconds?: number }
  | { malformed: { chat: unknown; responses: unknown } };

/** The API shapes a lane speaks. */
export type Api = "chat" | "responses";

/** The usage a mock-llm body reports for turn `index`: made up, but each count distinct. */
function usageOf(index: number) {
  const input = 100 * (index + 1);
  return { input, output: 10 + index, cached: 40 * index, reasoning: 3 + index };
}

function chatBody(model: string, index: number, turn: { say?: string; call?: TurnCall[] }) {
  const calls = turn.call ?? [];
  const usage = usageOf(index);
  return {
    id: `chatcmpl-${model}-${index}`,
    object: "chat.completion",
    created: 1_760_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.say ?? null,
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call, n) => ({
                  id: `call_${index}_${n}`,
                  type: "function",
                  function: { name: call.tool, arguments: JSON.stringify(call.args) },
                })),
              }),
        },
        finish_reason: calls.length === 0 ? "stop" : "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cached },
      completion_tokens_details: { reasoning_tokens: usage.reasoning },
    },
  };
}

function responsesBody(model: string, index: number, turn: { say?: string; call?: TurnCall[] }) {
  const calls = turn.call ?? [];
  const usage = usageOf(index);
  const message =
    turn.say === undefined
      ? []
      : [
          {
            type: "message",
            id: `msg_${index}`,
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text: turn.say, annotations: [] }],
          },
        ];
  return {
    id: `resp_${model}_${index}`,
    object: "response",
    created_at: 1_760_000_000,
    status: "completed",
    model,
    output: [
      ...message,
      ...calls.map((call, n) => ({
        type: "function_call",
        id: `fc_${index}_${n}`,
        call_id: `call_${index}_${n}`,
        name: call.tool,
        arguments: JSON.stringify(call.args),
        status: "completed",
      })),
    ],
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: usage.cached },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning },
      total_tokens: usage.input + usage.output,
    },
  };
}

/** The status and exact body a server sends for turn number `index` of `model` in `api`'s shape. */
export function wireAnswer(
  api: Api,
  model: string,
  index: number,
  turn: Turn,
): { status: number; body: unknown } {
  if ("fail" in turn) {
    const type = turn.status === 429 ? "requests" : "server_error";
    return { status: turn.status, body: { error: { message: turn.fail, type, code: null } } };
  }
  if ("malformed" in turn) return { status: 200, body: turn.malformed[api] };
  const body = api === "chat" ? chatBody(model, index, turn) : responsesBody(model, index, turn);
  return { status: 200, body };
}

/** The turn as the fake server's script plays it; `undefined` for a malformed turn (sent by intercept). */
export function scriptTurn(turn: Turn): ScriptTurn | undefined {
  if ("malformed" in turn) return undefined;
  if ("fail" in turn) {
    const { fail, status, retryAfterSeconds } = turn;
    return { fail, status, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  }
  return turn;
}
