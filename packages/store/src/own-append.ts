/**
 * An append whose reply was lost may have gone in: a connection cut under the
 * script call (a `CLIENT KILL`, a restarted proxy) after Redis ran it, then
 * the call sent again (by ioredis on reconnect, or by a writer retrying a
 * transient error). The second call finds the log past the seq it expects and
 * is refused as stale, though the events after that seq are the writer's own.
 * Taken for another writer's, the refusal would make a worker stop writing
 * a run nobody else holds, and the run would wait forever. The log tells:
 * entries stored byte for byte as this batch encodes them are its own.
 */
import type { NewEvent } from "@errand/core";
import { appendedEventsJson, encodeEventArgs, type StreamEntry } from "./codec.js";
import type { StoreKeys } from "./keys.js";
import { logEntryId } from "./readers.js";
import type { RedisClient } from "./scripts.js";

/** The fields of a log entry, by name. */
function fieldsByName([, fields]: StreamEntry): Map<string, string> {
  const byName = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (!byName.has(fields[i]!)) byName.set(fields[i]!, fields[i + 1]!);
  }
  return byName;
}

/** Whether `entry` is the one entry of a batch of `events` appended after `expectedSeq`. */
function isOneEntryOf(
  entry: StreamEntry,
  expectedSeq: number,
  events: readonly NewEvent[],
): boolean {
  const stored = fieldsByName(entry);
  return (
    stored.get("seq") === String(expectedSeq + 1) &&
    stored.get("events") === appendedEventsJson(events)
  );
}

/** Whether `entry` is the entry of `event` alone, as a batch appended one entry per event writes it. */
function isEntryOf(entry: StreamEntry, event: NewEvent): boolean {
  const stored = fieldsByName(entry);
  const [type, at, data] = encodeEventArgs(event);
  return stored.get("type") === type && stored.get("at") === at && stored.get("data") === data;
}

/**
 * True when the run's log holds, right after `expectedSeq`, exactly `events`
 * (type, time and data as the append encodes them, in one entry or one
 * entry each): an append refused as stale was this very batch, written by
 * an earlier call whose reply was lost.
 */
export async function isAppendedAlready(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  expectedSeq: number,
  events: readonly NewEvent[],
): Promise<boolean> {
  const entries = (await redis.xrange(
    keys.runLog(runId),
    logEntryId(expectedSeq + 1),
    logEntryId(expectedSeq + events.length),
  )) as StreamEntry[];
  if (entries.length === 1 && events.length > 1) {
    return isOneEntryOf(entries[0]!, expectedSeq, events);
  }
  if (entries.length !== events.length) return false;
  return entries.every((entry, index) => isEntryOf(entry, events[index]!));
}
