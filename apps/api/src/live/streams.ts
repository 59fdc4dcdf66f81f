/**
 * The API's open server-sent-event streams (events and deltas of runs):
 * each gets a signal that aborts when its client goes away or the process
 * closes, and a comment line every {@link KEEP_ALIVE_MS} so proxies keep it
 * open. At most `maxStreams` at once: one more is answered 503 `busy` with
 * `Retry-After`, at once, instead of queueing.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { apiError } from "../http/errors.js";

const KEEP_ALIVE_MS = 15_000;

/** The `Retry-After` of a stream refused beyond `maxStreams`. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** What a stream's producer writes to. */
export interface StreamSink {
  /** Sends one event: its data as JSON, `id` what a reconnecting client sends back as `Last-Event-ID`. */
  send(event: string, data: unknown, id?: string): Promise<void>;
  readonly signal: AbortSignal;
}

/** The open streams of one process. */
export interface Streams {
  /** A stream fed by `produce` until it resolves or the client goes; beyond the cap, 503 `busy`. */
  open(c: Context, produce: (sink: StreamSink) => Promise<void>): Response;
  /** How many are open. */
  readonly openCount: number;
  /** Aborts every stream and waits for its producer. */
  closeAll(): Promise<void>;
}

/** At most `maxStreams` streams; `onError` hears what a producer threw while its client was there. */
export function createStreams(maxStreams: number, onError: (error: unknown) => void): Streams {
  const running = new Map<AbortController, Promise<void>>();
  return {
    open(c, produce) {
      if (running.size >= maxStreams) {
        c.header("Retry-After", String(BUSY_RETRY_AFTER_SECONDS));
        return apiError(c, 503, "busy", `this API serves ${maxStreams} streams at once`, {
          retryable: true,
        });
      }
      const controller = new AbortController();
      let settle: () => void = () => {};
      running.set(controller, new Promise<void>((resolve) => (settle = resolve)));
      return streamSSE(c, async (sse) => {
        sse.onAbort(() => controller.abort());
        const keepAlive = setInterval(() => {
          sse.write(": keep-alive\n\n").catch(() => controller.abort());
        }, KEEP_ALIVE_MS);
        const sink: StreamSink = {
          signal: controller.signal,
          send: (event, data, id) =>
            sse.writeSSE({
              event,
              data: JSON.stringify(data),
              ...(id === undefined ? {} : { id }),
            }),
        };
        try {
          await produce(sink);
        } catch (error) {
          if (!controller.signal.aborted) onError(error);
        } finally {
          clearInterval(keepAlive);
          running.delete(controller);
          settle();
        }
      });
    },
    get openCount() {
      return running.size;
    },
    async closeAll() {
      const all = [...running.entries()];
      for (const [controller] of all) controller.abort();
      await Promise.all(all.map(([, done]) => done));
    },
  };
}
