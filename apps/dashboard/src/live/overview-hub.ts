/**
 * The overview, live: `GET /api/live` is a stream of server-sent events
 * `overview` (the whole `Overview`), shared by every open stream. While at
 * least one stream is open the hub reads the overview every second
 * ({@link OVERVIEW_TICK_MS}) — a run that starts announces nothing, so
 * queue counts and statuses are polled — and at once when a collector
 * announces settled runs on a shard's settled channel. It sends an overview
 * when something but the clock changed (`changed: true`: the runs lists
 * should be read again), and at least every {@link OVERVIEW_REFRESH_MS}
 * so heartbeat ages stay current (`changed: false`).
 */
import { openConnection, type RedisConnection } from "@errand/engine";
import { closeConnection } from "@errand/engine/ops";
import type { DashboardContext } from "../context.js";
import type { Overview, OverviewReader } from "../reads/overview.js";
import type { LiveStream } from "./live-streams.js";

/** How often the overview is read while streams are open. */
const OVERVIEW_TICK_MS = 1_000;

/** The longest time between two overviews sent while nothing changes. */
const OVERVIEW_REFRESH_MS = 5_000;

/** What an `overview` event carries. */
export interface OverviewMessage {
  overview: Overview;
  /** True when queues, runs, rates or workers changed since the previous message. */
  changed: boolean;
}

/** The shared overview feed. */
export interface OverviewHub {
  /** Feeds `stream` until its signal aborts. */
  serve(stream: LiveStream): Promise<void>;
  close(): Promise<void>;
}

/** What changes when something happens: the overview without its clock-driven fields. */
function signatureOf(overview: Overview): string {
  const { queues, runs, throughput, collectors } = overview;
  const workers = overview.workers.map(({ workerId, agents, stale }) => [workerId, agents, stale]);
  return JSON.stringify([queues, runs, throughput.settled, throughput.failed, collectors, workers]);
}

/** A hub reading through `reader`; `onError` hears failed reads (the next tick tries again). */
export function createOverviewHub(
  context: DashboardContext,
  reader: OverviewReader,
  onError: (error: unknown) => void,
): OverviewHub {
  const listeners = new Set<(message: OverviewMessage) => void>();
  let timer: NodeJS.Timeout | undefined;
  let subscriber: RedisConnection | undefined;
  let reading = false;
  let again = false;
  let last: { signature: string; sentAt: number; message: OverviewMessage } | undefined;

  async function tick(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      const overview = await reader.read();
      const signature = signatureOf(overview);
      const nowMs = Date.now();
      const changed = signature !== last?.signature;
      if (changed || last === undefined || nowMs - last.sentAt >= OVERVIEW_REFRESH_MS) {
        last = { signature, sentAt: nowMs, message: { overview, changed } };
        for (const listener of listeners) listener(last.message);
      }
    } catch (error) {
      onError(error);
    } finally {
      reading = false;
      if (again) {
        again = false;
        void tick();
      }
    }
  }

  function start(): void {
    timer = setInterval(() => void tick(), OVERVIEW_TICK_MS);
    subscriber = openConnection(context.options.connection, {
      logger: context.options.logger,
      name: "dashboard overview subscriber",
    });
    subscriber.on("message", () => void tick());
    const channels = Array.from({ length: context.options.shards }, (_, shard) =>
      context.keys.settledChannel(shard),
    );
    subscriber.subscribe(...channels).catch(onError);
  }

  async function stop(): Promise<void> {
    clearInterval(timer);
    timer = undefined;
    if (subscriber) await closeConnection(subscriber);
    subscriber = undefined;
    last = undefined;
  }

  return {
    async serve(stream) {
      const queue: OverviewMessage[] = [];
      let wake: (() => void) | undefined;
      const listener = (message: OverviewMessage) => {
        queue.push(message);
        wake?.();
      };
      if (listeners.size === 0) start();
      listeners.add(listener);
      stream.signal.addEventListener("abort", () => wake?.(), { once: true });
      if (last !== undefined) queue.push({ ...last.message, changed: true });
      void tick();
      try {
        while (!stream.signal.aborted) {
          const message = queue.shift();
          if (message !== undefined) {
            await stream.send("overview", message);
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        listeners.delete(listener);
        if (listeners.size === 0) await stop();
      }
    },
    close: stop,
  };
}
