/**
 * `startFakeOpenAI`: a real HTTP server on loopback that speaks the OpenAI
 * Chat Completions API and the Responses API and answers with scripted
 * turns, so the real `openai` client is exercised end to end. A request with
 * `stream: true` gets its answer as server-sent events in the API's own
 * streaming format (`stream-bodies.ts`).
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { failureHeaders, listenOnLoopback } from "../provider-fakes/wire-server.js";
import { buildCompletion } from "./chat-bodies.js";
import { buildResponse } from "./responses-bodies.js";
import { ResponsesMemory } from "./responses-conversation.js";
import { ScriptPlayer, type ScriptSource } from "./script-player.js";
import { chatChunks, responseEvents, type SseMessage } from "./stream-bodies.js";
import { validateChatRequest, validateResponsesRequest } from "./validate-request.js";
import { type AnswerTurn, buildError } from "./wire-bodies.js";
import type { ChatCompletionRequest } from "./wire-types.js";

/** An answer a test sends itself (see {@link FakeOpenAIOptions.intercept}). */
export interface InterceptedAnswer {
  status: number;
  /** Sent as JSON, unless `text` is given. */
  body?: unknown;
  /** Sent as it is (a body that is not JSON). */
  text?: string;
  headers?: Record<string, string>;
}

/** Options of {@link startFakeOpenAI}: where the scripts come from, and a hook to answer yourself. */
export interface FakeOpenAIOptions extends ScriptSource {
  /**
   * Asked first for every request: an answer to send instead of the
   * script's (to send what no turn can: a malformed answer, an odd header),
   * or `undefined` to play the script.
   */
  intercept?: (request: RecordedRequest) => InterceptedAnswer | undefined;
  /** The pause between two events of a streamed answer, in milliseconds. Default 0. */
  streamDelayMs?: number;
  /**
   * Asked before event `index` (from 0) of each streamed answer: a promise
   * to hold the stream until it settles (to look at a run mid-answer), or
   * `undefined` to go on.
   */
  holdStream?: (request: RecordedRequest, index: number) => Promise<void> | undefined;
}

/** One request the server received, in arrival order. */
export interface RecordedRequest {
  method: string;
  /** The path, e.g. `/v1/chat/completions` or `/v1/responses`. */
  path: string;
  headers: IncomingHttpHeaders;
  /**
   * The JSON body as received (not validated); `undefined` when empty or not
   * a JSON object. A Responses request is typed as a chat one: read its own
   * fields (`input`, `previous_response_id`, …) through `ResponsesRequest`.
   */
  body: Partial<ChatCompletionRequest> | undefined;
  /** The body as text. */
  rawBody: string;
  /** What the server answered, once it has (an intercepted `text` as that text). */
  answer?: { status: number; body: unknown };
}

/** A running fake OpenAI server. */
export interface FakeOpenAI {
  /** The base URL for the client, ending with `/v1`: `new OpenAI({ apiKey: "test", baseURL })`. */
  baseURL: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Stops the server: pending delayed answers are dropped and connections closed. */
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseObject(text: string): Partial<ChatCompletionRequest> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Partial<ChatCompletionRequest>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** True when `value` is an object whose `field` is `expected`. */
function isObjectWith(value: unknown, field: string, expected: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[field] === expected
  );
}

/** Sends answers and records each on its request. */
class Replier {
  constructor(
    private readonly response: ServerResponse,
    private readonly recorded: RecordedRequest,
  ) {}

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.send(status, body, JSON.stringify(body), headers);
  }

  /** Sends `text` as the body; `body` is what the recorded answer says was sent. */
  send(status: number, body: unknown, text: string, headers: Record<string, string> = {}): void {
    const { response } = this;
    if (response.destroyed || response.writableEnded) return;
    this.recorded.answer = { status, body };
    response.writeHead(status, {
      "content-type": "application/json",
      "x-request-id": `req_${Date.now().toString(36)}`,
      ...headers,
    });
    response.end(text);
  }

  /**
   * Sends `messages` as server-sent events, paced by `pace`, stopping when
   * `gone` fires; `body` is what the recorded answer says was sent.
   */
  async stream(
    body: unknown,
    messages: readonly SseMessage[],
    pace: Pick<FakeOpenAIOptions, "streamDelayMs" | "holdStream">,
    gone: AbortSignal,
  ) {
    const { response } = this;
    if (response.destroyed || response.writableEnded) return;
    this.recorded.answer = { status: 200, body };
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const [index, { event, data }] of messages.entries()) {
      await pace.holdStream?.(this.recorded, index);
      if (gone.aborted) return;
      response.write(`${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`);
      const delayMs = pace.streamDelayMs ?? 0;
      if (delayMs > 0) await delay(delayMs, undefined, { signal: gone }).catch(() => undefined);
    }
    response.end();
  }

  error(status: number, message: string, options: { param?: string | null; code?: string } = {}) {
    this.json(status, buildError(status, message, options));
  }

  /** A signal that fires when the client goes away or the server closes. */
  gone(closing: AbortSignal): AbortSignal {
    const gone = new AbortController();
    this.response.once("close", () => gone.abort());
    return AbortSignal.any([gone.signal, closing]);
  }
}

/**
 * Starts the server on a free 127.0.0.1 port. It answers
 * `POST /v1/chat/completions` and `POST /v1/responses` with the due turn of
 * the request's script, and `GET /v1/models` with the models of `options.scripts`.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const player = new ScriptPlayer(options);
  const memory = new ResponsesMemory();
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();

  /**
   * Plays the due turn of `conversation`: its delay, its failure, or the
   * answer `build` makes of it. Returns nothing when the client went away.
   */
  async function play<Body>(
    conversation: ChatCompletionRequest,
    reply: Replier,
    build: (turn: AnswerTurn | undefined) => Body,
    streamed?: (body: Body) => SseMessage[],
  ): Promise<void> {
    const cue = player.cue(conversation);
    if (cue.kind === "unknown-model") {
      const message = `The model \`${cue.model}\` does not exist or you do not have access to it.`;
      return reply.error(404, message, { param: "model" });
    }
    if (cue.kind === "invalid-script") return reply.error(500, cue.message);
    const turn = cue.turn;
    if (turn?.sleepMs) {
      const aborted = await delay(turn.sleepMs, false, {
        signal: reply.gone(closing.signal),
      }).catch(() => true);
      if (aborted) return;
    }
    if (turn !== undefined && "fail" in turn) {
      const status = turn.status ?? 500;
      player.failServed(conversation);
      const headers = failureHeaders(turn);
      return reply.json(status, buildError(status, turn.fail), headers);
    }
    const body = build(turn);
    if (streamed === undefined) return reply.json(200, body);
    const gone = reply.gone(closing.signal);
    return reply.stream(body, streamed(body), options, gone);
  }

  function answerChat(body: unknown, reply: Replier): Promise<void> | void {
    const check = validateChatRequest(body);
    if (!check.ok) return reply.error(400, check.message, { param: check.param });
    const request = check.request;
    const includeUsage = isObjectWith(request.stream_options, "include_usage", true);
    return play(
      request,
      reply,
      (turn) => buildCompletion(request, turn),
      request.stream === true ? (completion) => chatChunks(completion, includeUsage) : undefined,
    );
  }

  function answerResponses(body: unknown, reply: Replier): Promise<void> | void {
    const check = validateResponsesRequest(body);
    if (!check.ok) return reply.error(400, check.message, { param: check.param });
    const request = check.request;
    const refusal = memory.refusal(request);
    if (refusal) return reply.error(refusal.status, refusal.message, refusal);
    const conversation = memory.conversation(request);
    return play(
      conversation,
      reply,
      (turn) => {
        const response = buildResponse(request, conversation.messages, turn);
        memory.remember(request, conversation.messages, response);
        return response;
      },
      request.stream === true ? responseEvents : undefined,
    );
  }

  function listModels(reply: Replier): void {
    const created = Math.floor(Date.now() / 1000);
    const data = player
      .models()
      .map((id) => ({ id, object: "model", created, owned_by: "errand-testing" }));
    reply.json(200, { object: "list", data });
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    const body = parseObject(rawBody);
    const recorded: RecordedRequest = {
      method: request.method ?? "GET",
      path,
      headers: request.headers,
      body,
      rawBody,
    };
    requests.push(recorded);
    const reply = new Replier(response, recorded);
    const intercepted = options.intercept?.(recorded);
    if (intercepted) {
      const { status, body, text, headers } = intercepted;
      if (text === undefined) return reply.json(status, body, headers);
      return reply.send(status, text, text, headers);
    }
    const endpoints: Record<string, (body: unknown, reply: Replier) => Promise<void> | void> = {
      "/v1/chat/completions": answerChat,
      "/v1/responses": answerResponses,
    };
    const endpoint = request.method === "POST" ? endpoints[path] : undefined;
    if (endpoint) {
      if (body === undefined) return reply.error(400, "The body must be a JSON object.");
      return endpoint(body, reply);
    }
    if (request.method === "GET" && path === "/v1/models") return listModels(reply);
    const message = `Unknown request URL: ${request.method} ${path}.`;
    reply.error(404, message, { code: "unknown_url" });
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      if (response.headersSent || response.writableEnded) return;
      const failed = buildError(500, `fake OpenAI server failed: ${String(error)}`);
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify(failed));
    });
  });

  const { origin, close } = await listenOnLoopback(server, closing);
  return { baseURL: `${origin}/v1`, requests, close };
}
