/**
 * A run's live channel (docs/architecture/redis-layout.md#the-live-channel-streaming): a capped STREAM on the run's slot
 * holding the deltas of its current model request, so that a subscriber who
 * joins late reads the request's answer so far from the start of the stream,
 * then follows it from the last entry's id. Each `start` trims what came
 * before it (an earlier request's deltas are void; its answer, if any, is in
 * the log); the stream is also capped to {@link LIVE_MAX_ENTRIES} and expires
 * {@link LIVE_TTL_MS} after its last write, so a settled run's channel goes
 * away on its own.
 */
import type { LiveDelta, LiveEntry } from "@errand/core";
import type { StreamEntry } from "./codec.js";
import type { StoreKeys } from "./keys.js";
import type { RedisClient } from "./lua-command.js";

/** The most entries a live channel keeps (approximately: trimmed with `~`). */
const LIVE_MAX_ENTRIES = 10_000;

/** How long a live channel outlives its last write. */
export const LIVE_TTL_MS = 5 * 60_000;

/** The entries one read of a live channel takes, at most. */
export const LIVE_READ_COUNT = 500;

/** The position before a live channel's first entry: read from it, a subscriber gets everything the channel holds. */
export const LIVE_START = "0-0";

const DELTA_FIELD = "d";

/** True for a live channel offset (a stream entry id, `<ms>-<n>`). */
export function isLiveOffset(value: string): boolean {
  return /^\d+-\d+$/.test(value);
}

/**
 * Appends `deltas` to the run's channel in one transaction: each `start`
 * first empties the channel; the channel is capped and its expiry pushed back.
 */
export async function appendLive(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  deltas: readonly LiveDelta[],
): Promise<void> {
  const key = keys.runLive(runId);
  const transaction = redis.multi();
  for (const delta of deltas) {
    if (delta.type === "start") transaction.xtrim(key, "MAXLEN", 0);
    transaction.xadd(key, "MAXLEN", "~", LIVE_MAX_ENTRIES, "*", DELTA_FIELD, JSON.stringify(delta));
  }
  transaction.pexpire(key, LIVE_TTL_MS);
  const replies = await transaction.exec();
  const failure = replies?.find(([error]) => error !== null)?.[0];
  if (failure) throw failure;
}

/** A live channel's entry as a subscriber reads it; `undefined` for one that is not a delta. */
export function decodeLiveEntry([offset, fields]: StreamEntry): LiveEntry | undefined {
  const at = fields.indexOf(DELTA_FIELD);
  const text = at % 2 === 0 ? fields[at + 1] : undefined;
  if (text === undefined) return undefined;
  try {
    return { ...(JSON.parse(text) as LiveDelta), offset };
  } catch {
    return undefined;
  }
}

/** What the run's channel holds after `after` (default: all of it), without waiting. */
export async function readLive(
  redis: RedisClient,
  keys: StoreKeys,
  runId: string,
  after: string = LIVE_START,
): Promise<LiveEntry[]> {
  const entries = (await redis.xrange(keys.runLive(runId), `(${after}`, "+")) as StreamEntry[];
  return entries.flatMap((entry) => decodeLiveEntry(entry) ?? []);
}
