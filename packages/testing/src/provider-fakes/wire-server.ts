/**
 * The HTTP plumbing the fake Anthropic and Gemini servers share: a loopback
 * server that records every request (its raw body included, for
 * byte-for-byte checks) and the answer it got, and answers as JSON or as
 * server-sent events, holding an answer while a turn sleeps until the client
 * goes away or the server closes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import type { TurnSource } from "./provider-turn.js";

/** One request a fake provider received, in arrival order. */
export interface ProviderRequest {
  method: string;
  /** The path with its query, e.g. `/v1/messages` or `/v1beta/models/m:generateContent`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body; `undefined` when empty or not a JSON object. */
  body: Record<string, unknown> | undefined;
  /** The body as received. */
  rawBody: string;
  /** What the server answered, once it has: the JSON body, or the events of a stream. */
  answer?: { status: number; body: unknown };
}

/** How one request is answered. */
export class WireReply {
  private readonly gone: AbortSignal;

  constructor(
    private readonly response: ServerResponse,
    readonly recorded: ProviderRequest,
    closing: AbortSignal,
  ) {
    const left = new AbortController();
    response.once("close", () => left.abort());
    this.gone = AbortSignal.any([left.signal, closing]);
  }

  /** Waits `ms`; false when the client went away (or the server closed) meanwhile. */
  async hold(ms: number): Promise<boolean> {
    return delay(ms, true, { signal: this.gone }).catch(() => false);
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (this.response.writableEnded || this.response.destroyed) return;
    this.recorded.answer = { status, body };
    this.response.writeHead(status, { "content-type": "application/json", ...headers });
    this.response.end(JSON.stringify(body));
  }

  /** Sends each event as `event:` (when named) and `data:` lines. */
  sse(events: readonly { event?: string; data: unknown }[]): void {
    if (this.response.writableEnded || this.response.destroyed) return;
    this.recorded.answer = { status: 200, body: events.map(({ data }) => data) };
    this.response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
    });
    for (const { event, data } of events) {
      this.response.write(
        `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`,
      );
    }
    this.response.end();
  }
}

/** A running fake provider. */
export interface WireServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  origin: string;
  requests: ProviderRequest[];
  close(): Promise<void>;
}

/** A running fake provider, as a test uses it. */
export interface FakeProvider {
  /** The base URL to give the provider package (`createAnthropic({ baseURL })`, …). */
  baseURL: string;
  /** Every request received, in order. */
  requests: ProviderRequest[];
  close(): Promise<void>;
}

/** What a fake provider is started with: its turns, and a hook to answer yourself. */
export interface FakeProviderOptions extends TurnSource {
  /** Asked first: a body and status to send instead of the turn's. */
  intercept?: (request: ProviderRequest) => { status: number; body: unknown } | undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Starts a server on a free 127.0.0.1 port answering every request with
 * `answer`; a handler that throws gets a 500 with `failure(message)` as body.
 */
export async function startWireServer(
  answer: (reply: WireReply) => Promise<void> | void,
  failure: (message: string) => unknown,
): Promise<WireServer> {
  const requests: ProviderRequest[] = [];
  const closing = new AbortController();
  const server = createServer((request, response) => {
    readBody(request)
      .then((rawBody) => {
        const recorded: ProviderRequest = {
          method: request.method ?? "GET",
          path: request.url ?? "/",
          headers: request.headers,
          body: parseObject(rawBody),
          rawBody,
        };
        requests.push(recorded);
        return answer(new WireReply(response, recorded, closing.signal));
      })
      .catch((error: unknown) => {
        if (response.headersSent || response.writableEnded) return;
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify(failure(`the fake server failed: ${String(error)}`)));
      });
  });
  const { origin, close } = await listenOnLoopback(server, closing);
  return { origin, requests, close };
}

/**
 * Listens on a free 127.0.0.1 port; `close` (once, however often called)
 * fires `closing`, stops listening and drops every connection.
 */
export async function listenOnLoopback(
  server: Server,
  closing: AbortController,
): Promise<{ origin: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    origin: `http://127.0.0.1:${port}`,
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

/** The headers of a scripted failure: `retry-after` when the turn gives its seconds. */
export function failureHeaders(turn: { retryAfterSeconds?: number }): Record<string, string> {
  return turn.retryAfterSeconds === undefined
    ? {}
    : { "retry-after": String(turn.retryAfterSeconds) };
}
