/**
 * Waiting for runs to settle without polling. The collector PUBLISHes the
 * runIds of a batch on its shard's settled channel once their results are
 * written (one message a batch: `announcedRunIds`). A
 * waiter subscribes to the channels of the shards involved BEFORE it reads,
 * then reads again each time one of its runs is announced, until the read
 * says it is done or the time is up: a result written between the read and
 * the wait is never missed. An announcement that carries a run's result
 * hands it to the waiter's read, which then needs no read of its own for
 * that run. One subscriber connection serves every waiter of
 * a client; a channel stays subscribed while some waiter needs it, and for
 * {@link SUBSCRIPTION_LINGER_MS} after the last, so that a client waiting on
 * run after run subscribes once, not once a wait. An
 * announcement published while that connection was down (Redis restarting,
 * the network gone) is lost, so once it is back and subscribed again every
 * waiter reads again whatever it still waits for. Each announcement heard
 * is told on the diagnostics channel {@link SETTLED_HEARD_CHANNEL} (for
 * profiling: nothing is built without a subscriber).
 */
import { channel as diagnosticsChannel } from "node:diagnostics_channel";
import type { RunResult } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { closeConnection, whenReady } from "../client-lifecycle.js";
import type { StoreKeys } from "../keys.js";
import type { RedisClient } from "../lua-command.js";
import { type Deadline, scheduleDeadline } from "../shared-deadlines.js";
import { type AnnouncedRun, announcedRuns } from "./index-runs.js";
import { parseStoredResult } from "./stored-results.js";

/**
 * The runs announced settled since a waiter's previous read, each with its
 * result when the announcement carried it (else `undefined`: read it).
 */
export type AnnouncedResults = ReadonlyMap<string, RunResult | undefined>;

/** Waits for runs to settle. */
export interface SettledWaiter {
  /**
   * Calls `read` until `done(value)` or `waitMs` has passed, reading again
   * whenever one of `runIds` (well-formed run ids) is announced settled.
   * `read` is given the runs of `runIds` announced since its previous call,
   * with the results the announcements carried, so that a reader of many
   * runs may look again at just those, and only at those whose result did
   * not come with the announcement; it is given
   * `undefined` when it must look at every run: on the first call (made once
   * the subscriptions are active), after the subscriber reconnected, and on
   * a call that no announcement caused (the time is up, or the waiter
   * closed). Resolves with the last value read. With `waitMs` 0 it reads once.
   */
  waitUntil<T>(
    runIds: readonly string[],
    waitMs: number,
    read: (announced?: AnnouncedResults) => Promise<T>,
    done: (value: T) => boolean,
  ): Promise<T>;
  /** Closes the subscriber connection; waits in progress read once more and end. */
  close(): Promise<void>;
}

/**
 * The `node:diagnostics_channel` name on which a waiter's subscriber tells
 * each settled announcement it heard, as a {@link SettledHeard}.
 */
export const SETTLED_HEARD_CHANNEL = "errand:waiter:settled-heard";

/** What {@link SETTLED_HEARD_CHANNEL} carries: one announcement a waiter's subscriber heard. */
export interface SettledHeard {
  runId: string;
  /** When it was heard, in ms since the epoch, with sub-millisecond precision. */
  heardAt: number;
}

const settledHeard = diagnosticsChannel(SETTLED_HEARD_CHANNEL);

/**
 * The result an announcement carried, parsed; `undefined` when it carried
 * none, or one that does not parse (the waiter then reads that run's result
 * as after an announcement without it, and meets the error there).
 */
function carriedResult({ runId, result }: AnnouncedRun): RunResult | undefined {
  if (result === undefined) return undefined;
  try {
    return parseStoredResult(runId, result);
  } catch {
    return undefined;
  }
}

/** How long a channel stays subscribed after its last waiter is done, in ms (the last one's release counts). */
export const SUBSCRIPTION_LINGER_MS = 10_000;

interface Watcher {
  /**
   * `runId` (one it waits for) was announced, with its `result` when the
   * announcement carried it; undefined: look at every run (on close, or
   * after a reconnection).
   */
  notify(runId?: string, result?: RunResult): void;
}

/** The watchers of one run: one alone without a set (a run is nearly always waited for by one call). */
type Watchers = Watcher | Set<Watcher>;

/** Notifies each of `watchers` (see {@link Watcher.notify}). */
function notifyEach(watchers: Watchers, runId?: string, result?: RunResult): void {
  if (!(watchers instanceof Set)) {
    watchers.notify(runId, result);
    return;
  }
  for (const watcher of watchers) watcher.notify(runId, result);
}

interface Subscription {
  count: number;
  ready: Promise<unknown>;
  /** Whether `ready` has resolved: a wait need not wait on it then. */
  subscribed: boolean;
  /** The UNSUBSCRIBE due once the channel has lingered unused. */
  linger?: NodeJS.Timeout;
}

/**
 * A waiter whose subscriber connection `openSubscriber` opens on first use
 * (a connection of its own: it is put in subscriber mode, and closed by `close`).
 */
export function createSettledWaiter(
  openSubscriber: () => RedisClient,
  keys: StoreKeys,
): SettledWaiter {
  /** The watchers of each run waited for: its one watcher, as nearly every run has, or a set of them. */
  const watchers = new Map<string, Watchers>();
  const subscriptions = new Map<string, Subscription>();
  let subscriber: { connection: RedisClient; ready: Promise<void> } | undefined;
  let closed = false;

  /**
   * After a reconnection: subscribes again to every channel in use (ioredis
   * does too, without a promise to wait on), then wakes every waiter to read
   * everything it waits for, since what was announced meanwhile was lost.
   */
  async function resubscribed(opened: RedisClient): Promise<void> {
    const channels = [...subscriptions.keys()];
    if (channels.length > 0) await opened.subscribe(...channels).catch(() => undefined);
    notifyEvery();
  }

  /** Tells every waiter to look at every run it waits for. */
  function notifyEvery(): void {
    for (const ofRun of watchers.values()) notifyEach(ofRun);
  }

  function watch(runIds: readonly string[], watcher: Watcher): void {
    for (const runId of runIds) {
      const ofRun = watchers.get(runId);
      if (ofRun === undefined) watchers.set(runId, watcher);
      else if (ofRun instanceof Set) ofRun.add(watcher);
      else if (ofRun !== watcher) watchers.set(runId, new Set([ofRun, watcher]));
    }
  }

  function unwatch(runIds: readonly string[], watcher: Watcher): void {
    for (const runId of runIds) {
      const ofRun = watchers.get(runId);
      if (ofRun === watcher) watchers.delete(runId);
      else if (ofRun instanceof Set) {
        ofRun.delete(watcher);
        if (ofRun.size === 0) watchers.delete(runId);
      }
    }
  }

  /** The subscriber connection and the promise of its handshake, made once. */
  function subscriberConnection(): { connection: RedisClient; ready: Promise<void> } {
    if (!subscriber) {
      const opened = openSubscriber();
      opened.on("message", (_channel: string, message: string) => {
        const heardAt = settledHeard.hasSubscribers
          ? performance.timeOrigin + performance.now()
          : 0;
        for (const announced of announcedRuns(message)) {
          const { runId } = announced;
          if (settledHeard.hasSubscribers) {
            const heard: SettledHeard = { runId, heardAt };
            settledHeard.publish(heard);
          }
          const ofRun = watchers.get(runId);
          if (ofRun !== undefined) notifyEach(ofRun, runId, carriedResult(announced));
        }
      });
      let connectedBefore = false;
      opened.on("ready", () => {
        if (connectedBefore && !closed) void resubscribed(opened);
        connectedBefore = true;
      });
      subscriber = { connection: opened, ready: whenReady(opened) };
    }
    return subscriber;
  }

  /**
   * Counts one more user of `channel`'s subscription, subscribing first if
   * none is; the promise that resolves once the subscription is made, or
   * `undefined` when it is made already (a channel used run after run: no
   * wait on a settled promise). Not `async`: the subscription's own promise
   * is returned, not one more around it.
   */
  function acquire(channel: string): Promise<unknown> | undefined {
    let subscription = subscriptions.get(channel);
    if (!subscription) {
      const opened = subscriberConnection();
      const ready = opened.ready.then(() => opened.connection.subscribe(channel));
      const made: Subscription = { count: 0, ready, subscribed: false };
      subscriptions.set(channel, made);
      ready.then(
        () => {
          made.subscribed = true;
        },
        () => subscriptions.delete(channel),
      );
      subscription = made;
    }
    subscription.count += 1;
    return subscription.subscribed ? undefined : subscription.ready;
  }

  /**
   * Counts one user of `channel` fewer; the last one lets it linger. Its
   * linger timer is made once and pushed back at each release after (a
   * channel used by one run after another would make a timer a run); it
   * unsubscribes only a channel still unused when it fires.
   */
  function release(channel: string): void {
    const subscription = subscriptions.get(channel);
    if (!subscription) return;
    subscription.count -= 1;
    if (subscription.count > 0) return;
    if (subscription.linger !== undefined) {
      subscription.linger.refresh();
      return;
    }
    subscription.linger = setTimeout(() => {
      subscription.linger = undefined;
      if (subscription.count === 0 && subscriptions.get(channel) === subscription) {
        unsubscribe(channel);
      }
    }, SUBSCRIPTION_LINGER_MS);
    subscription.linger.unref();
  }

  /** Drops the subscription of `channel`, unused since it lingered. */
  function unsubscribe(channel: string): void {
    subscriptions.delete(channel);
    // Once closing, the connection is quitting: an UNSUBSCRIBE on it would fail.
    if (!closed) subscriber?.connection.unsubscribe(channel).catch(() => undefined);
  }

  /** The settled channels of the shards of `runIds`, each once (one run's without a set). */
  function settledChannelsOf(runIds: readonly string[]): string[] {
    if (runIds.length === 1) return [keys.settledChannel(shardOfRunId(runIds[0]!))];
    return [...new Set(runIds.map((runId) => keys.settledChannel(shardOfRunId(runId))))];
  }

  async function waitUntil<T>(
    runIds: readonly string[],
    waitMs: number,
    read: (announced?: AnnouncedResults) => Promise<T>,
    done: (value: T) => boolean,
  ): Promise<T> {
    if (waitMs <= 0 || runIds.length === 0) return read();
    const deadline = Date.now() + waitMs;
    let announced = false;
    /** The runs announced since the last read, made at the first announcement (none before the first read). */
    let announcedIds: Map<string, RunResult | undefined> | undefined;
    let wake: (() => void) | undefined;
    /** Ends the wait at its deadline: one for the whole wait, made when it first waits. */
    let timeUp: Deadline | undefined;
    let timeIsUp = false;
    const watcher: Watcher = {
      notify(runId, result) {
        announced = true;
        // A run announced twice keeps the result one of the announcements carried.
        if (runId !== undefined) {
          announcedIds ??= new Map();
          announcedIds.set(runId, result ?? announcedIds.get(runId));
        }
        wake?.();
      },
    };
    const channels = settledChannelsOf(runIds);
    let acquired = 0;
    watch(runIds, watcher);
    try {
      while (acquired < channels.length) {
        acquired += 1;
        const subscribing = acquire(channels[acquired - 1]!);
        if (subscribing !== undefined) await subscribing;
      }
      // What was announced while subscribing is covered by the first read, which looks at every run.
      let lookAtEvery = true;
      for (;;) {
        announced = false;
        const since = lookAtEvery ? undefined : announcedIds;
        lookAtEvery = false;
        announcedIds = undefined;
        const value = await read(since);
        const remainingMs = deadline - Date.now();
        if (done(value) || remainingMs <= 0 || timeIsUp || closed) return value;
        if (!announced) {
          timeUp ??= scheduleDeadline(remainingMs, () => {
            timeIsUp = true;
            wake?.();
          });
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      }
    } finally {
      timeUp?.cancel();
      unwatch(runIds, watcher);
      for (let index = 0; index < acquired; index++) release(channels[index]!);
    }
  }

  return {
    waitUntil,
    async close() {
      closed = true;
      notifyEvery();
      for (const { linger } of subscriptions.values()) clearTimeout(linger);
      if (subscriber) await closeConnection(subscriber.connection);
      subscriber = undefined;
      subscriptions.clear();
    },
  };
}
