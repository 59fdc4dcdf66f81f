/**
 * Following a run's log as it grows: blocking XREADs on a dedicated
 * connection, each waking as soon as an event is appended. No polling loop.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";
import { requireWholeNumber } from "@errand/core/ops";
import type { StreamEntry } from "./codec.js";
import type { StoreKeys } from "./keys.js";
import { logEntryId, logEventsAfter, readHead } from "./readers.js";
import type { RedisClient } from "./scripts.js";

/** Options of {@link followLog}. */
export interface FollowLogOptions {
  /** Yield events with a greater seq. Default 0: the whole log, then what follows. */
  afterSeq?: number;
  /**
   * How long one blocking read waits before the follower checks whether the
   * run still exists. Default 5,000 ms. After `signal` aborts, the dedicated
   * connection stays busy for at most this long.
   */
  blockMs?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
}

/** How long one blocking read waits when not told. */
export const DEFAULT_FOLLOW_BLOCK_MS = 5_000;

const FOLLOW_READ_COUNT = 100;
/** What {@link unlessAborted} resolves with once its signal aborts. */
export const ABORTED = Symbol("aborted");

type XReadReply = [key: string, entries: StreamEntry[]][] | null;

/** `promise`, or {@link ABORTED} as soon as `signal` aborts (the promise is left to settle). */
export function unlessAborted<T>(
  promise: Promise<T>,
  signal?: AbortSignal,
): Promise<T | typeof ABORTED> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** True when nothing more will be appended after `seq`: the run settled there, or does not exist. */
async function hasEnded(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  seq: number,
): Promise<boolean> {
  const head = await readHead(redis, keys, runId);
  return head === undefined || (head.settledAt !== undefined && head.seq <= seq);
}

/**
 * The run's events with seq > `afterSeq` as they are appended. Reads block on
 * `connection`, which must be dedicated to this follower (a blocked connection
 * serves nothing else); `redis` answers the occasional head check. Ends after
 * the run's terminal event, when the run does not exist (or expired), or when
 * `signal` aborts.
 */
export async function* followLog(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  { afterSeq = 0, blockMs = DEFAULT_FOLLOW_BLOCK_MS, signal }: FollowLogOptions,
  connection: RedisClient,
): AsyncGenerator<RunEvent, void, undefined> {
  requireWholeNumber("afterSeq", afterSeq, 0);
  requireWholeNumber("blockMs", blockMs, 1);
  const key = keys.runLog(runId);
  let seq = afterSeq;
  let idle = true;
  while (!signal?.aborted) {
    if (idle && (await hasEnded(redis, keys, runId, seq))) return;
    const read = connection.xread(
      "COUNT",
      FOLLOW_READ_COUNT,
      "BLOCK",
      blockMs,
      "STREAMS",
      key,
      logEntryId(seq),
    ) as Promise<XReadReply>;
    const reply = await unlessAborted(read, signal);
    if (reply === ABORTED) return;
    idle = reply === null;
    for (const [, entries] of reply ?? []) {
      for (const event of logEventsAfter(runId, entries, seq)) {
        yield event;
        seq = event.seq;
        if (isTerminalEventType(event.type)) return;
      }
    }
  }
}
