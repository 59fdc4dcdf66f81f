/**
 * A run's events and its live deltas. `GET /v1/runs/:runId/events` answers
 * a JSON page of the run's log (`{ items, count, hasMore, nextCursor? }`), or,
 * asked with `Accept: text/event-stream`, a stream of its events as they are
 * appended — each event's `id` its seq, so a client that reconnects with
 * `Last-Event-ID` resumes after it — ending with `end` once the run settled.
 * `GET /v1/runs/:runId/stream` streams the run's live deltas (text and tool
 * arguments as a streaming model writes them; the `id` their offset),
 * ending with `end`. Both follow through the process's one follower
 * (docs/architecture/http-api.md#one-waiter-per-process).
 */
import { ErrandError, isTerminalEventType, type RunEvent } from "@errand/core";
import { decodeCursor, encodeCursor, page } from "@errand/core/ops";
import { isLiveOffset } from "@errand/store/ops";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiContext } from "../context.js";
import type { ApiEnv } from "../http/env.js";
import type { StreamSink } from "../live/streams.js";
import { EventsQuery, RunIdParam } from "../schemas/requests.js";
import { EventPage } from "../schemas/responses.js";
import { pathRunId } from "./path-run-id.js";
import { ERROR_RESPONSES } from "./responses.js";

/** The default page of events. */
const DEFAULT_EVENTS_LIMIT = 200;

const LastEventId = z.object({
  "last-event-id": z
    .string()
    .max(64)
    .optional()
    .openapi({
      param: { in: "header" },
      description: "As a stream: resume after this id (an event's seq, a delta's offset).",
    }),
});

const sse = (description: string) => ({
  "text/event-stream": {
    schema: z.string().openapi({ description }),
  },
});

const eventsRoute = createRoute({
  method: "get",
  path: "/v1/runs/{runId}/events",
  operationId: "runEvents",
  summary:
    "A run's events: a JSON page, or with Accept: text/event-stream a stream until it settles",
  tags: ["events"],
  request: { params: RunIdParam, query: EventsQuery, headers: LastEventId },
  responses: {
    200: {
      description: "A page of events, or the stream of them",
      content: {
        "application/json": { schema: EventPage },
        ...sse("`event` events (a RunEvent, id its seq), then `end` ({ runId, status })"),
      },
    },
    ...ERROR_RESPONSES,
  },
});

const deltasRoute = createRoute({
  method: "get",
  path: "/v1/runs/{runId}/stream",
  operationId: "runDeltas",
  summary: "A run's live deltas (a streaming model's text and tool arguments), until it settles",
  tags: ["events"],
  request: { params: RunIdParam, headers: LastEventId },
  responses: {
    200: {
      description: "The stream of deltas",
      content: sse("`delta` events (a LiveEntry, id its offset), then `end` ({ runId })"),
    },
    ...ERROR_RESPONSES,
  },
});

/** The seq a cursor of a run's events carries (0 without one). */
function seqOfCursor(cursor: string | undefined): number {
  const seq = cursor === undefined ? 0 : decodeCursor(cursor)[0];
  if (typeof seq === "number" && Number.isSafeInteger(seq) && seq >= 0) return seq;
  throw new ErrandError(
    "invalid_spec",
    "invalid cursor: pass the nextCursor of the previous page of this run's events",
  );
}

/** `Last-Event-ID` as a seq: a whole number. */
function seqOfLastEventId(id: string | undefined): number {
  if (id === undefined || id === "") return 0;
  if (!/^\d{1,15}$/.test(id)) {
    throw new ErrandError(
      "invalid_spec",
      `Last-Event-ID must be an event's seq, not ${JSON.stringify(id)}`,
    );
  }
  return Number(id);
}

/** Sends the run's events after `afterSeq`, then each as it is appended, then `end`. */
async function sendEvents(context: ApiContext, runId: string, afterSeq: number, sink: StreamSink) {
  const send = (event: RunEvent) => sink.send("event", event, String(event.seq));
  const logged = await context.errand.store.readLog(runId, { afterSeq });
  for (const event of logged) await send(event);
  let last = logged.at(-1);
  if (last === undefined || !isTerminalEventType(last.type)) {
    for await (const event of context.follower.follow(runId, last?.seq ?? afterSeq, sink.signal)) {
      await send(event);
      last = event;
    }
  }
  if (sink.signal.aborted) return;
  const head = await context.errand.store.readHead(runId);
  await sink.send("end", { runId, status: head?.status });
}

/** Sends the run's deltas after `from` until it settles, then `end`. */
async function sendDeltas(
  context: ApiContext,
  runId: string,
  from: string | undefined,
  sink: StreamSink,
) {
  const { store } = context.errand;
  let offset = from;
  const settledOrGone = new AbortController();
  const signal = AbortSignal.any([sink.signal, settledOrGone.signal]);
  const deltas = (async () => {
    for await (const delta of context.follower.followLive(runId, offset, signal)) {
      await sink.send("delta", delta, delta.offset);
      offset = delta.offset;
    }
  })();
  const log = await store.readLog(runId);
  const last = log.at(-1);
  if (last !== undefined && !isTerminalEventType(last.type)) {
    for await (const _event of context.follower.follow(runId, last.seq, sink.signal)) {
      // Only its end matters: `follow` returns after the terminal event.
    }
  }
  settledOrGone.abort();
  await deltas;
  if (sink.signal.aborted) return;
  // What the channel got before the run settled and the follower did not hand over yet.
  for (const delta of await store.readLive(runId, offset))
    await sink.send("delta", delta, delta.offset);
  await sink.send("end", { runId });
}

/** Adds the routes of a run's events and deltas to `app`. */
export function addRunEventRoutes(app: OpenAPIHono<ApiEnv>, context: ApiContext): void {
  app.openapi(eventsRoute, async (c) => {
    const runId = pathRunId(c.req.valid("param").runId);
    const { limit, cursor } = c.req.valid("query");
    const asStream = (c.req.header("accept") ?? "").includes("text/event-stream");
    const afterSeq = asStream
      ? seqOfLastEventId(c.req.valid("header")["last-event-id"])
      : seqOfCursor(cursor);
    await c.var.errand.result(runId); // not_found for an unknown run, or another tenant's
    if (asStream) {
      return context.streams.open(c, (sink) => sendEvents(context, runId, afterSeq, sink)) as never;
    }
    const size = limit ?? DEFAULT_EVENTS_LIMIT;
    const events = await context.errand.store.readLog(runId, { afterSeq, count: size + 1 });
    const items = events.slice(0, size);
    const hasMore = events.length > size;
    const lastSeq = items.at(-1)?.seq ?? afterSeq;
    return c.json(
      page(items, hasMore ? { hasMore, nextCursor: encodeCursor([lastSeq]) } : { hasMore }),
      200,
    );
  });

  app.openapi(deltasRoute, async (c) => {
    const runId = pathRunId(c.req.valid("param").runId);
    const from = c.req.valid("header")["last-event-id"] || undefined;
    if (from !== undefined && !isLiveOffset(from)) {
      throw new ErrandError(
        "invalid_spec",
        `Last-Event-ID must be a delta's offset (<ms>-<n>), not ${JSON.stringify(from)}`,
      );
    }
    await c.var.errand.result(runId);
    return context.streams.open(c, (sink) => sendDeltas(context, runId, from, sink)) as never;
  });
}
