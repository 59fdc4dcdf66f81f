/**
 * One read of many runs' logs at once, for a follower that serves many
 * watchers (the dashboard's live views): every run from after its own seq,
 * at most {@link LOG_READ_COUNT} entries a run, as raw entries (decode each
 * run's with `decodeLogEntry`, so that one broken log fails alone).
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
import { shardOfRunId } from "@errand/core";
import { Cluster } from "ioredis";
import type { StreamEntry } from "./codec.js";
import type { StoreKeys } from "./keys.js";
import type { RedisClient } from "./lua-command.js";
import { logEntryId } from "./readers.js";

/** The entries one read takes of one run's log, at most. */
export const LOG_READ_COUNT = 100;

/** How long a read on a Redis Cluster that found nothing waits before it answers. */
export const CLUSTER_POLL_MS = 250;

/** Where to read: each run's log after the seq given. */
export type LogPositions = ReadonlyMap<string, number>;

/** What a read found: each run's new entries (runs without any are left out). */
export type LogEntries = Map<string, StreamEntry[]>;

type XReadReply = [key: string, entries: StreamEntry[]][] | null;

async function readLogs(
  connection: RedisClient,
  keys: StoreKeys,
  positions: LogPositions,
  blockMs: number | undefined,
): Promise<LogEntries> {
  const runIds = [...positions.keys()];
  const streams = [
    ...runIds.map((runId) => keys.runLog(runId)),
    ...runIds.map((runId) => logEntryId(positions.get(runId) ?? 0)),
  ];
  const reply = (
    blockMs === undefined
      ? await connection.xread("COUNT", LOG_READ_COUNT, "STREAMS", ...streams)
      : await connection.xread("COUNT", LOG_READ_COUNT, "BLOCK", blockMs, "STREAMS", ...streams)
  ) as XReadReply;
  const runOfKey = new Map(runIds.map((runId) => [keys.runLog(runId), runId]));
  const found: LogEntries = new Map();
  for (const [key, entries] of reply ?? []) {
    const runId = runOfKey.get(key);
    if (runId !== undefined && entries.length > 0) found.set(runId, entries);
  }
  return found;
}

/** The positions of each shard's runs. */
function byShard(positions: LogPositions): LogPositions[] {
  const shards = new Map<number, Map<string, number>>();
  for (const [runId, seq] of positions) {
    const shard = shardOfRunId(runId);
    const group = shards.get(shard) ?? new Map<string, number>();
    group.set(runId, seq);
    shards.set(shard, group);
  }
  return [...shards.values()];
}

/**
 * Reads the logs at `positions` on `connection` (dedicated): waits up to
 * `blockMs` for an entry on one server, polls each shard on a Cluster (see
 * the module documentation). `signal` cuts a Cluster's wait short.
 */
export async function readWatchedLogs(
  connection: RedisClient,
  keys: StoreKeys,
  positions: LogPositions,
  blockMs: number,
  signal: AbortSignal,
): Promise<LogEntries> {
  if (!(connection instanceof Cluster)) return readLogs(connection, keys, positions, blockMs);
  const reads = await Promise.all(
    byShard(positions).map((shard) => readLogs(connection, keys, shard, undefined)),
  );
  const found: LogEntries = new Map(reads.flatMap((read) => [...read]));
  if (found.size === 0) await delay(CLUSTER_POLL_MS, undefined, { signal }).catch(() => {});
  return found;
}
