/**
 * `startFakeOpenAI`: a real HTTP server on loopback that speaks the OpenAI
 * Chat Completions API (non-streaming) and answers with scripted turns, so
 * the real `openai` client is exercised end to end.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { buildCompletion, buildError } from "./responses.js";
import { ScriptPlayer, type ScriptSource } from "./script-player.js";
import { validateChatRequest } from "./validate-request.js";
import type { ChatCompletionRequest } from "./wire-types.js";

/** Options of {@link startFakeOpenAI}: where the scripts come from. */
export type FakeOpenAIOptions = ScriptSource;

/** One request the server received, in arrival order. */
export interface RecordedRequest {
  method: string;
  /** The path, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body as received (not validated); `undefined` when empty or not a JSON object. */
  body: Partial<ChatCompletionRequest> | undefined;
  /** The body as text. */
  rawBody: string;
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

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed || response.writableEnded) return;
  response.writeHead(status, {
    "content-type": "application/json",
    "x-request-id": `req_${Date.now().toString(36)}`,
    ...headers,
  });
  response.end(JSON.stringify(body));
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

/**
 * Starts the server on a free 127.0.0.1 port. It answers
 * `POST /v1/chat/completions` with the due turn of the request's script and
 * `GET /v1/models` with the models of `options.scripts`.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const player = new ScriptPlayer(options);
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();

  async function answerChat(body: unknown, response: ServerResponse): Promise<void> {
    const check = validateChatRequest(body);
    if (!check.ok)
      return sendJson(response, 400, buildError(400, check.message, { param: check.param }));
    const request = check.request;
    const cue = player.cue(request);
    if (cue.kind === "unknown-model") {
      const message = `The model \`${cue.model}\` does not exist or you do not have access to it.`;
      return sendJson(response, 404, buildError(404, message, { param: "model" }));
    }
    if (cue.kind === "invalid-script") return sendJson(response, 500, buildError(500, cue.message));
    const turn = cue.turn;
    if (turn?.sleepMs) {
      const gone = new AbortController();
      response.once("close", () => gone.abort());
      const aborted = await delay(turn.sleepMs, false, {
        signal: AbortSignal.any([gone.signal, closing.signal]),
      }).catch(() => true);
      if (aborted) return;
    }
    if (turn !== undefined && "fail" in turn) {
      const status = turn.status ?? 500;
      player.failServed(request);
      const headers: Record<string, string> =
        turn.retryAfterSeconds === undefined
          ? {}
          : { "retry-after": String(turn.retryAfterSeconds) };
      return sendJson(response, status, buildError(status, turn.fail), headers);
    }
    sendJson(response, 200, buildCompletion(request, turn));
  }

  function listModels(response: ServerResponse): void {
    const created = Math.floor(Date.now() / 1000);
    const data = player
      .models()
      .map((id) => ({ id, object: "model", created, owned_by: "errand-testing" }));
    sendJson(response, 200, { object: "list", data });
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    const body = parseObject(rawBody);
    requests.push({
      method: request.method ?? "GET",
      path,
      headers: request.headers,
      body,
      rawBody,
    });
    if (request.method === "POST" && path === "/v1/chat/completions") {
      if (body === undefined) {
        return sendJson(response, 400, buildError(400, "The body must be a JSON object."));
      }
      return answerChat(body, response);
    }
    if (request.method === "GET" && path === "/v1/models") return listModels(response);
    const message = `Unknown request URL: ${request.method} ${path}.`;
    sendJson(response, 404, buildError(404, message, { code: "unknown_url" }));
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      sendJson(response, 500, buildError(500, `fake OpenAI server failed: ${String(error)}`));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
