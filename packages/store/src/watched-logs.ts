/**
 * One read of many streams at once, for a follower that serves many
 * watchers (the dashboard's live views): runs' logs and live channels, each
 * from after its own position, at most {@link LOG_READ_COUNT} entries a
 * stream, as raw entries (decode each run's with `logEventsAfter` or
 * `decodeLiveEntry`, so that one broken stream fails alone).
 *
 * - On one Redis server: one `XREAD BLOCK` over every log, which waits until
 *   an entry arrives in any of them or `blockMs` passes. The connection must
 *   be dedicated to it: a blocked connection serves nothing else.
 * - On a Redis Cluster, one command cannot read keys of several slots (the
 *   logs of different shards), and blocked reads on one node would queue
 *   behind each other: each shard's logs are read without blocking, together,
 *   and a read that finds nothing waits {@link CLUSTER_POLL_MS} before it
 *   answers (abortably). Polling, but bounded: one read per shard with
 *   watched runs every 250 ms, whatever the number of viewers.
 */
import { setTimeout as delay } from "node:timers/promises";
import { Cluster } from "ioredis";
import type { StreamEntry } from "./codec.js";
import type { RedisClient } from "./lua-command.js";

/** The entries one read takes of one stream, at most. */
const LOG_READ_COUNT = 100;

/** How long a read on a Redis Cluster that found nothing waits before it answers. */
const CLUSTER_POLL_MS = 250;

type XReadReply = [key: string, entries: StreamEntry[]][] | null;

/** Where to read: each stream's key, after the entry id given. */
export type StreamPositions = ReadonlyMap<string, string>;

/** What a read found: each stream's new entries, by key (streams without any are left out). */
export type StreamEntries = Map<string, StreamEntry[]>;

async function readStreams(
  connection: RedisClient,
  positions: StreamPositions,
  blockMs: number | undefined,
): Promise<StreamEntries> {
  const streams = [...positions.keys(), ...positions.values()];
  const reply = (
    blockMs === undefined
      ? await connection.xread("COUNT", LOG_READ_COUNT, "STREAMS", ...streams)
      : await connection.xread("COUNT", LOG_READ_COUNT, "BLOCK", blockMs, "STREAMS", ...streams)
  ) as XReadReply;
  const found: StreamEntries = new Map();
  for (const [key, entries] of reply ?? []) {
    if (positions.has(key) && entries.length > 0) found.set(key, entries);
  }
  return found;
}

/** The positions grouped by the hash tag of their keys (a key without one is its own group). */
function bySlot(positions: StreamPositions): StreamPositions[] {
  const groups = new Map<string, Map<string, string>>();
  for (const [key, id] of positions) {
    const tag = /\{[^}]*\}/.exec(key)?.[0] ?? key;
    const group = groups.get(tag) ?? new Map<string, string>();
    group.set(key, id);
    groups.set(tag, group);
  }
  return [...groups.values()];
}

/**
 * Reads the streams at `positions` (each run's log, live channel, … of any
 * shard) on `connection` (dedicated): waits up to `blockMs` for an entry on
 * one server, polls each shard on a Cluster (see the module documentation).
 * `signal` cuts a Cluster's wait short.
 */
export async function readWatchedStreams(
  connection: RedisClient,
  positions: StreamPositions,
  blockMs: number,
  signal: AbortSignal,
): Promise<StreamEntries> {
  if (!(connection instanceof Cluster)) return readStreams(connection, positions, blockMs);
  const reads = await Promise.all(
    bySlot(positions).map((group) => readStreams(connection, group, undefined)),
  );
  const found: StreamEntries = new Map(reads.flatMap((read) => [...read]));
  if (found.size === 0) await delay(CLUSTER_POLL_MS, undefined, { signal }).catch(() => {});
  return found;
}
