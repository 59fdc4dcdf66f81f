/**
 * Every live run view of one process (the dashboard's pages, the HTTP API's
 * streams) follows its run's log, and its live channel
 * (docs/architecture/redis-layout.md#the-live-channel-streaming), through one shared follower, on two Redis
 * connections whatever the number of viewers (a connection per viewer once
 * filled a Redis's `maxclients`).
 *
 * Each viewer is a watcher of one stream (a log, a live channel) with the
 * entry id it has taken. A read covers every watched stream from the lowest
 * id its watchers took (`readWatchedStreams` of the store), and hands each
 * watcher the entries after its own id, in order (a watcher behind where a
 * read started is left: the next read starts lower).
 * A blocked read cannot take in a run watched after it was sent, so the
 * follower has two connections that take turns: a new run is read at once
 * on the free one; while both are busy, it waits for the next read
 * (within {@link FOLLOW_BLOCK_MS}). A watcher whose viewer lags
 * {@link MAX_QUEUED_EVENTS} behind is paused — left out of the reads — until
 * its viewer catches up, so a slow viewer holds no unbounded memory.
 */
import { isTerminalEventType, type LiveEntry, type RunEvent } from "@errand/core";
import type { Logger } from "@errand/runtime";
import type { StreamEntry } from "@errand/store";
import {
  decodeLiveEntry,
  LIVE_START,
  logEntryId,
  logEventsAfter,
  readWatchedStreams,
} from "@errand/store/ops";
import type { EngineKeys } from "../engine-keys.js";
import { type ConnectionInput, openConnection, type RedisConnection } from "../redis/connection.js";

/** How long one read waits for new events before it is sent again (taking in new runs). */
const FOLLOW_BLOCK_MS = 1_000;

/** The entries a watcher holds for its viewer before it is paused. */
export const MAX_QUEUED_EVENTS = 1_000;

/** The pause after a failed read before the next. */
const ERROR_PAUSE_MS = 1_000;

/** What a follower reads with: the deployment's keys, and the Redis its two connections are opened on. */
export interface RunLogFollowerContext {
  readonly keys: EngineKeys;
  readonly connection: ConnectionInput;
  readonly logger: Logger;
  /** Names its connections in logs: `<name> 0`, `<name> 1`. */
  readonly name: string;
}

/** The follower of one process. */
export interface RunLogFollower {
  /**
   * The run's events after `afterSeq` as they are appended, in order, until
   * its terminal event, `signal` aborting, or the follower closing.
   */
  follow(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<RunEvent>;
  /**
   * The run's live deltas after `from` (default: all the channel holds, the
   * current model request's answer so far), as they are published, until
   * `signal` aborts or the follower closes: the caller ends it when the run
   * settles.
   */
  followLive(
    runId: string,
    from: string | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<LiveEntry>;
  /** Ends every follow and closes the connections. */
  close(): Promise<void>;
}

interface Watcher {
  /** The stream watched. */
  key: string;
  /** The id of the last entry taken. */
  id: string;
  queue: StreamEntry[];
  /** Left out of reads until its viewer takes events again. */
  paused: boolean;
  /** The follower closed. */
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
  context: RunLogFollowerContext,
  onError: (error: unknown) => void,
): RunLogFollower {
  const watched = new Map<string, Set<Watcher>>();
  const closing = new AbortController();
  let readers: Reader[] | undefined;
  /** Grows whenever a read must take in more than the reads in flight cover. */
  let version = 0;

  function positions(): Map<string, string> {
    const from = new Map<string, string>();
    for (const [key, watchers] of watched) {
      for (const watcher of watchers) {
        if (watcher.paused || watcher.ended) continue;
        const lowest = from.get(key);
        if (lowest === undefined || compareIds(watcher.id, lowest) < 0) from.set(key, watcher.id);
      }
    }
    return from;
  }

  /** Hands `entries`, read after `readFrom`, to the watchers of `key` at or after it. */
  function hand(key: string, readFrom: string, entries: readonly StreamEntry[]): void {
    for (const watcher of watched.get(key) ?? []) {
      // A read from past this watcher's id skipped entries it has not taken: the next read starts lower.
      if (compareIds(readFrom, watcher.id) > 0) continue;
      for (const entry of entries) {
        if (watcher.paused || watcher.ended) break;
        if (compareIds(entry[0], watcher.id) <= 0) continue;
        watcher.queue.push(entry);
        watcher.id = entry[0];
        watcher.paused = watcher.queue.length >= MAX_QUEUED_EVENTS;
      }
      watcher.wake?.();
    }
  }

  function end(watcher: Watcher): void {
    watcher.ended = true;
    watcher.wake?.();
  }

  async function read(reader: Reader, from: Map<string, string>): Promise<void> {
    try {
      const found = await readWatchedStreams(
        reader.connection,
        from,
        FOLLOW_BLOCK_MS,
        closing.signal,
      );
      for (const [key, entries] of found) hand(key, from.get(key) ?? LIVE_START, entries);
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
      connection: openConnection(context.connection, {
        logger: context.logger,
        name: `${context.name} ${reader}`,
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
    const watchers = watched.get(watcher.key) ?? new Set<Watcher>();
    watchers.add(watcher);
    watched.set(watcher.key, watchers);
    version += 1;
    pump();
  }

  function unwatch(watcher: Watcher): void {
    const watchers = watched.get(watcher.key);
    watchers?.delete(watcher);
    if (watchers?.size === 0) watched.delete(watcher.key);
  }

  /** The entries of the stream at `key` after `id`, as they arrive, until `signal` aborts or the follower closes. */
  async function* followStream(
    key: string,
    id: string,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEntry> {
    const watcher: Watcher = { key, id, queue: [], paused: false, ended: false };
    const onAbort = () => watcher.wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    watch(watcher);
    try {
      while (!signal.aborted) {
        const entry = watcher.queue.shift();
        if (entry !== undefined) {
          if (watcher.paused && watcher.queue.length === 0 && !watcher.ended) {
            watcher.paused = false;
            version += 1;
            pump();
          }
          yield entry;
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
  }

  return {
    async *follow(runId, afterSeq, signal) {
      for await (const entry of followStream(
        context.keys.runLog(runId),
        logEntryId(afterSeq),
        signal,
      )) {
        for (const event of logEventsAfter(runId, [entry], afterSeq)) {
          yield event;
          if (isTerminalEventType(event.type)) return;
        }
      }
    },
    async *followLive(runId, from, signal) {
      for await (const entry of followStream(
        context.keys.runLive(runId),
        from ?? LIVE_START,
        signal,
      )) {
        const delta = decodeLiveEntry(entry);
        if (delta !== undefined) yield delta;
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

/** The order of two stream entry ids (`<ms>-<n>`). */
function compareIds(a: string, b: string): number {
  const [aMs = "0", aSeq = "0"] = a.split("-");
  const [bMs = "0", bSeq = "0"] = b.split("-");
  return Number(aMs) - Number(bMs) || Number(aSeq) - Number(bSeq);
}
