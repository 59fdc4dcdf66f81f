/**
 * Reading the log: one run's events, its head, and a shard's stream of
 * every event (the collector's input, where a broken entry is reported, not thrown).
 */
import type { RunEvent } from "@errand/core";
import { requireWholeNumber } from "@errand/core/ops";
import { decodeLogEntry, decodeShardEntry, type ShardEntry, type StreamEntry } from "./codec.js";
import { decodeHead, type RunHead } from "./head.js";
import type { StoreKeys } from "./keys.js";
import type { RedisClient } from "./scripts.js";

/** Options of {@link readLog}. */
export interface ReadLogOptions {
  /** Only events with a greater seq. Default 0: from the first. */
  afterSeq?: number;
  /** Only events with this seq or a smaller one. Default: to the last. */
  untilSeq?: number;
  /** At most this many events. Default: every one in range. */
  count?: number;
}

/** Options of {@link readShard}. */
export interface ReadShardOptions {
  /** Only entries after this stream entry id. Default: from the start of the stream. */
  afterId?: string;
  /** At most this many entries. Default {@link DEFAULT_SHARD_READ_COUNT}. */
  count?: number;
}

/** How many shard entries {@link readShard} returns when not told. */
const DEFAULT_SHARD_READ_COUNT = 100;

/**
 * The log entry id of the entry that ends with the event of `seq`: the run
 * log's ids are `0-<seq>`, an entry of one append's events taking its last
 * event's seq, so entries after `logEntryId(s)` hold every event after `s`
 * (the first of them perhaps with events up to `s` too).
 */
export function logEntryId(seq: number): string {
  return `0-${seq}`;
}

/** The events of log `entries` with a seq above `afterSeq`, in order. */
export function logEventsAfter(
  runId: string,
  entries: readonly StreamEntry[],
  afterSeq: number,
): RunEvent[] {
  const events: RunEvent[] = [];
  for (const entry of entries) {
    for (const event of decodeLogEntry(runId, entry)) if (event.seq > afterSeq) events.push(event);
  }
  return events;
}

/**
 * The run's events with `afterSeq` < seq ≤ `untilSeq`, in order, at most
 * `count` of them; `[]` for an unknown (or expired) run. Throws an
 * {@link ErrandError} `invalid_spec` for a bound that is not a whole number,
 * `invalid_event` for a broken entry.
 */
export async function readLog(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  { afterSeq = 0, untilSeq, count }: ReadLogOptions = {},
): Promise<RunEvent[]> {
  requireWholeNumber("afterSeq", afterSeq, 0);
  if (untilSeq !== undefined) requireWholeNumber("untilSeq", untilSeq, 0);
  if (count !== undefined) requireWholeNumber("count", count, 1);
  const start = `(${logEntryId(afterSeq)}`;
  const key = keys.runLog(runId);
  // Every entry after `afterSeq` holds one event of the range at least, and the one holding
  // `untilSeq` may end past it: so the range ends at "+", and the entries read are counted.
  const entriesNeeded = Math.min(
    count ?? Number.POSITIVE_INFINITY,
    untilSeq === undefined ? Number.POSITIVE_INFINITY : untilSeq - afterSeq,
  );
  if (entriesNeeded <= 0) return [];
  const entries = (
    entriesNeeded === Number.POSITIVE_INFINITY
      ? await redis.xrange(key, start, "+")
      : await redis.xrange(key, start, "+", "COUNT", entriesNeeded)
  ) as StreamEntry[];
  const events = logEventsAfter(runId, entries, afterSeq).filter(
    (event) => untilSeq === undefined || event.seq <= untilSeq,
  );
  return count === undefined ? events : events.slice(0, count);
}

/** The run's head, or `undefined` for an unknown (or expired) run. */
export async function readHead(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
): Promise<RunHead | undefined> {
  return decodeHead(runId, await redis.hgetall(keys.runHead(runId)));
}

/**
 * Up to `count` entries of the shard's stream after `afterId`, each with its
 * events (an append's) or, for an entry that is not events of a run of
 * this shard, an `error`. Never throws for a broken entry.
 */
export async function readShard(
  redis: RedisClient,
  keys: StoreKeys,
  shard: number,
  { afterId, count = DEFAULT_SHARD_READ_COUNT }: ReadShardOptions = {},
): Promise<ShardEntry[]> {
  requireWholeNumber("count", count, 1);
  const start = afterId === undefined ? "-" : `(${afterId}`;
  const entries = (await redis.xrange(
    keys.shardEvents(shard),
    start,
    "+",
    "COUNT",
    count,
  )) as StreamEntry[];
  return entries.map((entry) => decodeShardEntry(shard, entry));
}
