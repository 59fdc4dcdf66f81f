/**
 * Every live run view of one dashboard follows its run's log through one
 * shared follower, on two Redis connections whatever the number of viewers
 * (a connection per viewer once filled a Redis's `maxclients`).
 *
 * Each viewer is a watcher with the seq it has taken. A read covers every
 * watched run from the lowest seq its watchers took (`readWatchedLogs` of the store), and
 * hands each watcher the events that follow its own seq, in order (an event
 * it already has, or one past a gap, is left: the next read starts lower).
 * A blocked read cannot take in a run watched after it was sent, so the
 * follower has two connections that take turns: a new run is read at once
 * on the free one; while both are busy, it waits for the next read
 * (within {@link FOLLOW_BLOCK_MS}). A watcher whose viewer lags
 * {@link MAX_QUEUED_EVENTS} behind is paused — left out of the reads — until
 * its viewer catches up, so a slow viewer holds no unbounded memory.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";
import { openConnection, type RedisConnection } from "@errand/engine";
import { decodeLogEntry, readWatchedLogs, type StreamEntry } from "@errand/store";
import type { DashboardContext } from "../context.js";

/** How long one read waits for new events before it is sent again (taking in new runs). */
const FOLLOW_BLOCK_MS = 1_000;

/** The events a watcher holds for its viewer before it is paused. */
export const MAX_QUEUED_EVENTS = 1_000;

/** The pause after a failed read before the next. */
const ERROR_PAUSE_MS = 1_000;

/** The follower of one dashboard. */
export interface RunLogFollower {
  /**
   * The run's events after `afterSeq` as they are appended, in order, until
   * its terminal event, `signal` aborting, or the follower closing.
   */
  follow(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<RunEvent>;
  /** Ends every follow and closes the connections. */
  close(): Promise<void>;
}

interface Watcher {
  runId: string;
  /** The seq of the last event taken. */
  seq: number;
  queue: RunEvent[];
  /** Left out of reads until its viewer takes events again. */
  paused: boolean;
  /** Took its run's terminal event, or the follower closed. */
  ended: boolean;
  wake?: () => void;
}

interface Reader {
  connection: RedisConnection;
  /** The watched set's version its read in flight covers; undefined when idle. */
  covers: number | undefined;
}

/** A follower on `context`'s Redis; `onError` hears failed reads (they are tried again). */
export function createRunLogFollower(
  context: DashboardContext,
  onError: (error: unknown) => void,
): RunLogFollower {
  const watched = new Map<string, Set<Watcher>>();
  const closing = new AbortController();
  let readers: Reader[] | undefined;
  /** Grows whenever a read must take in more than the reads in flight cover. */
  let version = 0;

  function positions(): Map<string, number> {
    const from = new Map<string, number>();
    for (const [runId, watchers] of watched) {
      for (const watcher of watchers) {
        if (watcher.paused || watcher.ended) continue;
        from.set(runId, Math.min(from.get(runId) ?? watcher.seq, watcher.seq));
      }
    }
    return from;
  }

  function hand(runId: string, entries: readonly StreamEntry[]): void {
    const watchers = watched.get(runId);
    if (watchers === undefined) return;
    let events: RunEvent[];
    try {
      events = entries.map((entry) => decodeLogEntry(runId, entry));
    } catch (error) {
      onError(error);
      for (const watcher of watchers) end(watcher);
      return;
    }
    for (const watcher of watchers) {
      for (const event of events) {
        if (watcher.paused || watcher.ended) break;
        if (event.seq !== watcher.seq + 1) continue;
        watcher.queue.push(event);
        watcher.seq = event.seq;
        watcher.ended = isTerminalEventType(event.type);
        watcher.paused = watcher.queue.length >= MAX_QUEUED_EVENTS;
      }
      watcher.wake?.();
    }
  }

  function end(watcher: Watcher): void {
    watcher.ended = true;
    watcher.wake?.();
  }

  async function read(reader: Reader, from: Map<string, number>): Promise<void> {
    try {
      const found = await readWatchedLogs(
        reader.connection,
        context.keys,
        from,
        FOLLOW_BLOCK_MS,
        closing.signal,
      );
      for (const [runId, entries] of found) hand(runId, entries);
    } catch (error) {
      if (closing.signal.aborted) return;
      onError(error);
      await new Promise((resolve) => setTimeout(resolve, ERROR_PAUSE_MS).unref());
    } finally {
      reader.covers = undefined;
    }
    pump();
  }

  /** Sends a read on a free connection, unless one in flight covers the current watched set. */
  function pump(): void {
    if (closing.signal.aborted) return;
    const from = positions();
    if (from.size === 0) return;
    readers ??= [0, 1].map((reader) => ({
      connection: openConnection(context.options.connection, {
        logger: context.options.logger,
        name: `dashboard run follower ${reader}`,
      }),
      covers: undefined,
    }));
    if (readers.some((reader) => reader.covers === version)) return;
    const free = readers.find((reader) => reader.covers === undefined);
    if (free === undefined) return;
    free.covers = version;
    void read(free, from);
  }

  function watch(watcher: Watcher): void {
    const watchers = watched.get(watcher.runId) ?? new Set<Watcher>();
    watchers.add(watcher);
    watched.set(watcher.runId, watchers);
    version += 1;
    pump();
  }

  function unwatch(watcher: Watcher): void {
    const watchers = watched.get(watcher.runId);
    watchers?.delete(watcher);
    if (watchers?.size === 0) watched.delete(watcher.runId);
  }

  return {
    async *follow(runId, afterSeq, signal) {
      const watcher: Watcher = { runId, seq: afterSeq, queue: [], paused: false, ended: false };
      const onAbort = () => watcher.wake?.();
      signal.addEventListener("abort", onAbort, { once: true });
      watch(watcher);
      try {
        while (!signal.aborted) {
          const event = watcher.queue.shift();
          if (event !== undefined) {
            if (watcher.paused && watcher.queue.length === 0 && !watcher.ended) {
              watcher.paused = false;
              version += 1;
              pump();
            }
            yield event;
            continue;
          }
          if (watcher.ended) return;
          await new Promise<void>((resolve) => {
            watcher.wake = resolve;
          });
          watcher.wake = undefined;
        }
      } finally {
        signal.removeEventListener("abort", onAbort);
        unwatch(watcher);
      }
    },
    async close() {
      closing.abort();
      for (const watchers of watched.values()) for (const watcher of watchers) end(watcher);
      for (const reader of readers ?? []) reader.connection.disconnect();
      readers = undefined;
    },
  };
}
