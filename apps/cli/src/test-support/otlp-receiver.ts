/**
 * A local OTLP/HTTP trace receiver for tests: it accepts what an exporter
 * posts to `/v1/traces` in the OTLP JSON encoding (what
 * `@opentelemetry/exporter-trace-otlp-http` sends) and decodes every span,
 * with its attributes, events and links as plain values.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** The span kinds of OTLP, by their number on the wire. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

type Attributes = Record<string, unknown>;

/** A span as received. Ids are lower-case hex, as the JSON encoding carries them. */
export interface ReceivedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Attributes;
  events: { name: string; attributes: Attributes }[];
  links: { traceId: string; spanId: string; attributes: Attributes }[];
  status: { code?: number; message?: string };
}

interface WireValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: WireValue[] };
}
interface WireAttribute {
  key: string;
  value: WireValue;
}
interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: WireAttribute[];
  events?: { name: string; attributes?: WireAttribute[] }[];
  links?: { traceId: string; spanId: string; attributes?: WireAttribute[] }[];
  status?: { code?: number; message?: string };
}
interface WireRequest {
  resourceSpans?: {
    resource?: { attributes?: WireAttribute[] };
    scopeSpans?: { spans?: WireSpan[] }[];
  }[];
}

function decodeValue(value: WireValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(attributes: WireAttribute[] | undefined): Attributes {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, decodeValue(value)]));
}

function decodeSpans(request: WireRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(decodeAttributes(resourceSpans.resource?.attributes)["service.name"]);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map(
        (span): ReceivedSpan => ({
          service,
          name: span.name,
          kind: span.kind,
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          attributes: decodeAttributes(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: decodeAttributes(event.attributes),
          })),
          links: (span.links ?? []).map((link) => ({
            traceId: link.traceId,
            spanId: link.spanId,
            attributes: decodeAttributes(link.attributes),
          })),
          status: span.status ?? {},
        }),
      ),
    );
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** Resolves with the spans once `done(spans)` holds; rejects after `timeoutMs`. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const POLL_MS = 50;

/** Starts a receiver on a free loopback port. A body that is not OTLP JSON is answered 400. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const isJson = request.headers["content-type"]?.startsWith("application/json") ?? false;
    if (request.method !== "POST" || request.url !== "/v1/traces" || !isJson) {
      response.writeHead(400).end();
      return;
    }
    received.push(...decodeSpans(JSON.parse(body) as WireRequest));
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    async waitFor(done, timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > until) {
          const names = received.map((span) => span.name).join(", ");
          throw new Error(`the spans awaited did not arrive in ${timeoutMs} ms; got: ${names}`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      return [...received];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
