/**
 * Trimming a shard stream behind what its consumer groups acknowledged. An
 * entry is removed only when every group has been delivered it and none
 * still holds it pending, so nothing a collector still owes is ever lost.
 */
import type { RedisConnection } from "../redis/connection.js";
import { compareStreamIds, earlierStreamId } from "./stream-ids.js";

/** One group as XINFO GROUPS describes it (the fields trimming and metrics use). */
export interface GroupInfo {
  name: string;
  pending: number;
  lastDeliveredId: string;
  /** Entries not yet delivered to the group; null when Redis cannot tell. */
  lag: number | null;
}

/** The stream's consumer groups; none for a stream that does not exist. */
export async function readGroups(redis: RedisConnection, stream: string): Promise<GroupInfo[]> {
  let rows: unknown[][];
  try {
    rows = (await redis.xinfo("GROUPS", stream)) as unknown[][];
  } catch (error) {
    if (error instanceof Error && /no such key/i.test(error.message)) return [];
    throw error;
  }
  return rows.map((row) => {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < row.length; i += 2) fields.set(String(row[i]), row[i + 1]);
    const lag = fields.get("lag");
    return {
      name: String(fields.get("name")),
      pending: Number(fields.get("pending")),
      lastDeliveredId: String(fields.get("last-delivered-id")),
      lag: typeof lag === "number" ? lag : null,
    };
  });
}

/**
 * The first entry id some group has not acknowledged: its oldest pending
 * entry, or else the last one delivered to it (later ones are undelivered).
 * Everything before the returned id is acknowledged by every group.
 *
 * The groups are read before their pending entries: an entry at or before a
 * group's last delivered id cannot become pending again once acknowledged,
 * so what is acknowledged at the first read stays acknowledged.
 */
async function firstUnacknowledgedId(
  redis: RedisConnection,
  stream: string,
  groups: readonly GroupInfo[],
): Promise<string> {
  const bounds = await Promise.all(
    groups.map(async (group) => {
      if (group.pending === 0) return group.lastDeliveredId;
      const [count, oldestPending] = (await redis.xpending(stream, group.name)) as [
        number,
        string | null,
      ];
      return count > 0 && oldestPending !== null
        ? earlierStreamId(oldestPending, group.lastDeliveredId)
        : group.lastDeliveredId;
    }),
  );
  return bounds.reduce(earlierStreamId);
}

/**
 * Removes the entries of `stream` that every consumer group acknowledged and
 * resolves with how many. A stream without a group is left alone: nobody
 * has read it.
 */
export async function trimAcknowledged(redis: RedisConnection, stream: string): Promise<number> {
  const groups = await readGroups(redis, stream);
  if (groups.length === 0) return 0;
  const minId = await firstUnacknowledgedId(redis, stream, groups);
  if (compareStreamIds(minId, "0-1") < 0) return 0;
  return (await redis.xtrim(stream, "MINID", minId)) as number;
}
