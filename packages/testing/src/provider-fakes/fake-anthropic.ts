/**
 * `startFakeAnthropic`: a loopback server speaking Anthropic's Messages API
 * (`POST /v1/messages`), as JSON or, with `stream: true`, as its server-sent
 * events (`message_start`, `content_block_start`/`_delta`/`_stop` with
 * `text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`,
 * `message_delta`, `message_stop`), so `@ai-sdk/anthropic` parses every
 * answer itself. A thinking turn answers with a `thinking` block signed by
 * the server and, when asked, a `redacted_thinking` block; usage reports
 * cache reads and writes.
 *
 * It refuses what the real API refuses about thinking, with a 400
 * `invalid_request_error`: a thinking block sent back whose signature the
 * server did not issue for exactly that text, redacted data it did not
 * issue, and — with thinking enabled — an assistant turn ending in tool use
 * that does not start with its thinking block.
 */
import { createHmac } from "node:crypto";
import type { ProviderTurn, TurnCall } from "./provider-turn.js";
import { TurnCounter } from "./provider-turn.js";
import {
  type FakeProvider,
  type FakeProviderOptions,
  failureHeaders,
  startWireServer,
  type WireReply,
} from "./wire-server.js";

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] };

const SIGNING_KEY = "fake-anthropic-signing-key";

/** The signature the server gives a thinking text. */
function sign(thinking: string): string {
  return createHmac("sha256", SIGNING_KEY).update(thinking).digest("base64");
}

function errorBody(type: string, message: string) {
  return { type: "error", error: { type, message } };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function blocksOf(message: Message): Block[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : message.content;
}

/** Why the thinking sent back in `messages` would be refused, or `undefined`. */
function thinkingRefusal(
  messages: readonly Message[],
  thinkingOn: boolean,
  redacted: ReadonlySet<string>,
): string | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    const blocks = blocksOf(message);
    for (const block of blocks) {
      if (block.type === "thinking" && block.signature !== sign(String(block.thinking))) {
        return `messages.${index}.content: Invalid \`signature\` in \`thinking\` block`;
      }
      if (block.type === "redacted_thinking" && !redacted.has(String(block.data))) {
        return `messages.${index}.content: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
    const last = index === messages.length - 1 || messages[index + 1]?.role === "user";
    const usesTool = blocks.some((block) => block.type === "tool_use");
    const first = blocks[0]?.type;
    if (thinkingOn && last && usesTool && first !== "thinking" && first !== "redacted_thinking") {
      return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
    }
  }
  return undefined;
}

/** The content blocks of an answering turn. */
function answerBlocks(
  turn: { say?: string; call?: TurnCall[]; think?: boolean; redact?: boolean },
  step: number,
  redacted: Set<string>,
): Block[] {
  const blocks: Block[] = [];
  if (turn.think) {
    const thinking = `Step ${step}: decide what to do next.`;
    blocks.push({ type: "thinking", thinking, signature: sign(thinking) });
  }
  if (turn.redact) {
    const data = `EmwKAhgBEgy-redacted-${step}`;
    redacted.add(data);
    blocks.push({ type: "redacted_thinking", data });
  }
  if (turn.say !== undefined) blocks.push({ type: "text", text: turn.say });
  for (const [n, call] of (turn.call ?? []).entries()) {
    blocks.push({ type: "tool_use", id: `toolu_${step}_${n}`, name: call.tool, input: call.args });
  }
  return blocks;
}

/** The usage of an answer: made up, each count distinct and growing with the conversation. */
function usageOf(step: number, blocks: readonly Block[]) {
  return {
    input_tokens: 100 + 10 * step,
    cache_creation_input_tokens: 30 + step,
    cache_read_input_tokens: 200 * (step - 1),
    output_tokens: 20 + 5 * blocks.length,
  };
}

/** The message as server-sent events, block by block. */
function messageEvents(message: Record<string, unknown>) {
  const blocks = message.content as Block[];
  const usage = message.usage as Record<string, number>;
  const events: { event: string; data: unknown }[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
  ];
  for (const [index, block] of blocks.entries()) {
    const start: Block =
      block.type === "thinking"
        ? { type: "thinking", thinking: "", signature: "" }
        : block.type === "text"
          ? { type: "text", text: "" }
          : block.type === "tool_use"
            ? { ...block, input: {} }
            : block;
    events.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: start },
    });
    const deltas: Block[] =
      block.type === "thinking"
        ? [
            { type: "thinking_delta", thinking: block.thinking },
            { type: "signature_delta", signature: block.signature },
          ]
        : block.type === "text"
          ? [{ type: "text_delta", text: block.text }]
          : block.type === "tool_use"
            ? [{ type: "input_json_delta", partial_json: JSON.stringify(block.input) }]
            : [];
    for (const delta of deltas) {
      events.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta },
      });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  }
  events.push(
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}

/** Starts the fake on a free 127.0.0.1 port; its `baseURL` ends with `/v1`. */
export async function startFakeAnthropic(options: FakeProviderOptions): Promise<FakeProvider> {
  const counter = new TurnCounter();
  const redacted = new Set<string>();

  async function answer(reply: WireReply): Promise<void> {
    const { recorded } = reply;
    const intercepted = options.intercept?.(recorded);
    if (intercepted) return reply.json(intercepted.status, intercepted.body);
    if (recorded.method !== "POST" || !recorded.path.startsWith("/v1/messages")) {
      return reply.json(404, errorBody("not_found_error", `Not found: ${recorded.path}`));
    }
    const body = recorded.body;
    const messages = body?.messages;
    if (body === undefined || typeof body.model !== "string" || !Array.isArray(messages)) {
      return reply.json(
        400,
        errorBody("invalid_request_error", "model and messages: Field required"),
      );
    }
    if (typeof body.max_tokens !== "number") {
      return reply.json(400, errorBody("invalid_request_error", "max_tokens: Field required"));
    }
    const thinking = body.thinking as { type?: string } | undefined;
    const refusal = thinkingRefusal(messages as Message[], thinking?.type === "enabled", redacted);
    if (refusal) return reply.json(400, errorBody("invalid_request_error", refusal));
    const first = blocksOf((messages as Message[])[0] ?? { role: "user", content: [] })[0];
    const turns = options.turnsFor(
      body.model,
      first?.type === "text" ? String(first.text) : undefined,
    );
    if (turns === undefined) {
      return reply.json(404, errorBody("not_found_error", `model: ${body.model}`));
    }
    const answered = (messages as Message[]).filter((m) => m.role === "assistant").length;
    const key = `${body.model}\n${JSON.stringify((messages as Message[])[0]?.content)}`;
    const turn: ProviderTurn = turns[counter.due(key, answered)] ?? { say: "" };
    if ("malformed" in turn) {
      return body.stream === true
        ? reply.sse([{ data: turn.malformed }])
        : reply.json(200, turn.malformed);
    }
    if ("fail" in turn) {
      counter.failed(key);
      const status = turn.status ?? 500;
      const headers = failureHeaders(turn);
      const type = ERROR_TYPES[status] ?? "api_error";
      return reply.json(status, errorBody(type, turn.fail), headers);
    }
    if (turn.sleepMs && !(await reply.hold(turn.sleepMs))) return;
    const step = answered + 1;
    const blocks = answerBlocks(turn, step, redacted);
    const message = {
      id: `msg_${step}_${recorded.rawBody.length}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content: blocks,
      stop_reason: blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: usageOf(step, blocks),
    };
    if (body.stream === true) return reply.sse(messageEvents(message));
    reply.json(200, message);
  }

  const server = await startWireServer(answer, (message) => errorBody("api_error", message));
  return { baseURL: `${server.origin}/v1`, requests: server.requests, close: server.close };
}
