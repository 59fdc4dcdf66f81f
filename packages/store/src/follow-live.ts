/**
 * Following a run's live channel until the run settles: one blocking XREAD
 * over the channel and the run's log together (both on the run's slot), so
 * that a delta wakes the subscriber and so does the terminal event that ends
 * the channel. No polling. Deltas are written before the step that ends them
 * is appended (docs/architecture/redis-layout.md#the-live-channel-streaming), so once the terminal event is seen, what the
 * channel holds is complete: it is read to its end and the follow ends.
 */
import { isTerminalEventType, type LiveEntry } from "@errand/core";
import { requireWholeNumber } from "@errand/core/ops";
import type { StreamEntry } from "./codec.js";
import { ABORTED, DEFAULT_FOLLOW_BLOCK_MS, unlessAborted } from "./follow.js";
import type { StoreKeys } from "./keys.js";
import { decodeLiveEntry, isLiveOffset, LIVE_READ_COUNT, LIVE_START } from "./live.js";
import type { RedisClient } from "./lua-command.js";
import { logEntryId, logEventsAfter, readHead } from "./readers.js";

/** Options of {@link followLive}. */
export interface FollowLiveOptions {
  /**
   * Yield the entries after this offset (a {@link LiveEntry.offset}).
   * Default: everything the channel holds, which is the current model
   * request's answer so far.
   */
  from?: string;
  /** How long one blocking read waits before the run's head is checked. Default 5,000 ms. */
  blockMs?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
}

type XReadReply = [key: string, entries: StreamEntry[]][] | null;

/**
 * The run's live deltas after `from`, then as they are published, until the
 * run settles (or does not exist) and its channel is read to the end, or
 * `signal` aborts. Reads block on `connection`, which must be dedicated to
 * this follower; `redis` answers the head checks.
 */
export async function* followLive(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  { from = LIVE_START, blockMs = DEFAULT_FOLLOW_BLOCK_MS, signal }: FollowLiveOptions,
  connection: RedisClient,
): AsyncGenerator<LiveEntry, void, undefined> {
  requireWholeNumber("blockMs", blockMs, 1);
  if (!isLiveOffset(from))
    throw new RangeError(`from must be a live offset (<ms>-<n>), not ${from}`);
  const liveKey = keys.runLive(runId);
  const head = await readHead(redis, keys, runId);
  if (head === undefined) return;
  let settled = head.settledAt !== undefined;
  let seq = head.seq;
  let offset = from;
  while (!signal?.aborted) {
    const draining = settled;
    const read = (
      draining
        ? connection.xread("COUNT", LIVE_READ_COUNT, "STREAMS", liveKey, offset)
        : connection.xread(
            "COUNT",
            LIVE_READ_COUNT,
            "BLOCK",
            blockMs,
            "STREAMS",
            liveKey,
            keys.runLog(runId),
            offset,
            logEntryId(seq),
          )
    ) as Promise<XReadReply>;
    const reply = await unlessAborted(read, signal);
    if (reply === ABORTED) return;
    let deltas = 0;
    for (const [key, entries] of reply ?? []) {
      if (key !== liveKey) {
        const events = logEventsAfter(runId, entries, seq);
        seq = events.at(-1)?.seq ?? seq;
        settled ||= events.some((event) => isTerminalEventType(event.type));
        continue;
      }
      deltas = entries.length;
      for (const entry of entries) {
        offset = entry[0];
        const delta = decodeLiveEntry(entry);
        if (delta !== undefined) yield delta;
      }
    }
    if (draining && deltas < LIVE_READ_COUNT) return;
    if (reply === null) {
      const now = await readHead(redis, keys, runId);
      if (now === undefined) return;
      settled = now.settledAt !== undefined;
    }
  }
}
