/**
 * Talking to a dashboard over real HTTP in tests: JSON requests, the
 * page's session (its CSRF token) and server-sent-event streams read event
 * by event. Test-only: not exported.
 */
import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { CSRF_HEADER } from "../http/security.js";

/** A JSON answer. */
export interface JsonAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** `GET`s (or sends `init`) and parses the JSON answer. */
export async function requestJson<T = unknown>(
  base: string,
  path: string,
  init: RequestInit = {},
): Promise<JsonAnswer<T>> {
  const response = await fetch(new URL(path, base), init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${path} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

/** The dashboard's CSRF token, as its page reads it. */
export async function csrfTokenOf(
  base: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const session = await requestJson<{ csrfToken: string }>(base, "/api/session", { headers });
  return session.body.csrfToken;
}

/** POSTs `body` as the page does: JSON, same origin, with the CSRF header. */
export async function postAction<T = unknown>(
  base: string,
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<JsonAnswer<T>> {
  const csrf = await csrfTokenOf(base, headers);
  return requestJson<T>(base, path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      origin: new URL(base).origin,
      [CSRF_HEADER]: csrf,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** An answer read with `node:http`. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What {@link rawRequest} sends: any headers (`host` included, as a proxy sends it). */
export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

function sendRaw(
  base: string,
  path: string,
  { method = "GET", headers = {} }: RawRequest,
  writeBody: (request: ClientRequest) => void,
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path, method, headers },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (text: string) => {
          body += text;
        });
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
          request.destroy();
        });
      },
    );
    request.on("error", reject);
    writeBody(request);
  });
}

/** Sends `path` (as written: `//x/` stays two slashes) with `node:http`, which lets tests set `host`. */
export function rawRequest(
  base: string,
  path: string,
  options: RawRequest = {},
): Promise<RawAnswer> {
  return sendRaw(base, path, options, (request) => request.end(options.body));
}

/**
 * Starts a request, writes `chunk` of its body and never ends it: resolves
 * with the answer the server gives while the rest of the body is still due
 * (a server that waits for the whole body never answers). Without a
 * `content-length` header the body is sent chunked.
 */
export function answerBeforeBodyEnds(
  base: string,
  path: string,
  options: RawRequest & { chunk: Buffer },
): Promise<RawAnswer> {
  return sendRaw(base, path, options, (request) => request.write(options.chunk));
}

/** One server-sent event. */
export interface SseMessage {
  event: string;
  data: unknown;
}

/** An open event stream. */
export interface SseStream {
  status: number;
  /** The next event; throws when the stream ends first. */
  next(): Promise<SseMessage>;
  /** Events until `until` matches one (returned last); throws when the stream ends first. */
  until(until: (message: SseMessage) => boolean): Promise<SseMessage[]>;
  /** Resolves once the server has closed the stream (events left unread are dropped). */
  ended(): Promise<void>;
  close(): void;
}

/** Opens `path` as an event stream. */
export async function openSse(base: string, path: string): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(new URL(path, base), {
    signal: controller.signal,
    headers: { accept: "text/event-stream" },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const pending: SseMessage[] = [];
  let done = false;

  async function fill(): Promise<void> {
    while (pending.length === 0 && !done) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) {
        done = true;
        return;
      }
      buffer += chunk.value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split("\n");
        const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
        const data = lines
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n");
        if (event !== undefined) pending.push({ event, data: JSON.parse(data) });
        end = buffer.indexOf("\n\n");
      }
    }
  }

  const next = async (): Promise<SseMessage> => {
    await fill();
    const message = pending.shift();
    if (message === undefined) throw new Error(`the event stream ${path} ended`);
    return message;
  };

  return {
    status: response.status,
    next,
    async until(until) {
      const seen: SseMessage[] = [];
      for (;;) {
        const message = await next();
        seen.push(message);
        if (until(message)) return seen;
      }
    },
    async ended() {
      while (!done) {
        pending.length = 0;
        await fill();
      }
    },
    close: () => controller.abort(),
  };
}
