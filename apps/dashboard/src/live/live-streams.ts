/**
 * The dashboard's open server-sent-event streams: each gets an
 * `AbortSignal` that fires when its client goes away or when the dashboard
 * closes, and a comment line every {@link KEEP_ALIVE_MS} so proxies keep it
 * open. At most `maxLiveClients` are open at once: one more is answered 503
 * `busy` with `Retry-After` ({@link LIVE_RETRY_AFTER_SECONDS}).
 */
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { createAdmission, refuseBusy } from "../http/admission.js";

/** How often an idle stream sends a comment line. */
const KEEP_ALIVE_MS = 15_000;

/** The `Retry-After` of a stream refused beyond `maxLiveClients`. */
export const LIVE_RETRY_AFTER_SECONDS = 10;

/** What a stream's producer gets. */
export interface LiveStream {
  /** Sends one event; its data is JSON; `id` is what a reconnecting client sends back as `Last-Event-ID`. */
  send(event: string, data: unknown, id?: string): Promise<void>;
  /** Aborts when the client goes away or the dashboard closes. */
  readonly signal: AbortSignal;
}

/** The open streams of one dashboard. */
export interface LiveStreams {
  /**
   * Answers with a stream fed by `produce`; the stream ends when `produce`
   * resolves or the signal aborts. Beyond the cap, answers 503 `busy`.
   */
  open(c: Context, produce: (stream: LiveStream) => Promise<void>): Response;
  /** Aborts every open stream and waits for their producers to end. */
  closeAll(): Promise<void>;
}

/** A registry of at most `maxClients` streams; `onError` hears what a producer threw. */
export function createLiveStreams(
  maxClients: number,
  onError: (error: unknown) => void,
): LiveStreams {
  const open = new Map<AbortController, Promise<void>>();
  const clients = createAdmission(maxClients);

  function feed(
    sse: SSEStreamingApi,
    produce: (stream: LiveStream) => Promise<void>,
    release: () => void,
  ) {
    const controller = new AbortController();
    sse.onAbort(() => controller.abort());
    const keepAlive = setInterval(() => {
      sse.write(": keep-alive\n\n").catch(() => controller.abort());
    }, KEEP_ALIVE_MS);
    const stream: LiveStream = {
      signal: controller.signal,
      send: (event, data, id) =>
        sse.writeSSE({ event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) }),
    };
    const done = produce(stream)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) onError(error);
      })
      .finally(() => {
        clearInterval(keepAlive);
        open.delete(controller);
        release();
      });
    open.set(controller, done);
    return done;
  }

  return {
    open(c, produce) {
      const release = clients.tryEnter();
      if (release === undefined) {
        return refuseBusy(
          c,
          `this dashboard serves ${maxClients} live streams at once; try again shortly`,
          LIVE_RETRY_AFTER_SECONDS,
        );
      }
      return streamSSE(c, (sse) => feed(sse, produce, release));
    },
    async closeAll() {
      const running = [...open.entries()];
      for (const [controller] of running) controller.abort();
      await Promise.all(running.map(([, done]) => done));
    },
  };
}
