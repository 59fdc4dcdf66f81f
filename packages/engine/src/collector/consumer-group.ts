/**
 * The collectors' consumer group on a shard stream: creating it, reading new
 * entries (blocking), re-reading this consumer's own pending entries after a
 * restart, claiming entries other consumers left idle (XAUTOCLAIM),
 * acknowledging, and a pending entry's delivery count.
 */
import type { RedisConnection } from "../redis/connection.js";
import { redisTroubleOf, retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import type { CollectorContext } from "./context.js";

/** The consumer group collectors share when not told otherwise. */
export const DEFAULT_COLLECTOR_GROUP = "collectors";

/** A stream entry as a read returns it; `fields` is null for an entry deleted while pending. */
export type DeliveredEntry = [id: string, fields: string[] | null];

type ReadGroupReply = [stream: string, entries: DeliveredEntry[]][] | null;

/** Where one consumer reads: a stream, its group, the consumer's name. */
export interface GroupReader {
  stream: string;
  group: string;
  consumer: string;
}

/** Whether `stream` has the consumer group `group` (a read: Redis answers it even when it refuses writes). */
async function hasGroup(redis: RedisConnection, stream: string, group: string): Promise<boolean> {
  const groups = (await redis.xinfo("GROUPS", stream).catch(() => [])) as unknown[][];
  return groups.some((fields) => fields[0] === "name" && fields[1] === group);
}

/**
 * Creates the group on `stream` (and the stream) reading from the very first
 * entry; a group that exists is left as it is. Redis refusing writes (out
 * of memory, or unable to persist) refuses the creation even of a group
 * that exists: that refusal is thrown only when the group is missing.
 */
export async function ensureGroup(
  redis: RedisConnection,
  stream: string,
  group: string,
): Promise<void> {
  try {
    await redis.xgroup("CREATE", stream, group, "0", "MKSTREAM");
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("BUSYGROUP")) return;
    const trouble = redisTroubleOf(error);
    const refusesWrites = trouble === "out-of-memory" || trouble === "refusing-writes";
    if (refusesWrites && (await hasGroup(redis, stream, group))) return;
    throw error;
  }
}

/**
 * {@link ensureGroup} with the collector's group on its connection, made
 * again while Redis refuses writes (or cannot answer) and the group is
 * missing, until it takes them or the collector stops.
 */
export function ensureGroupWhenRoom(context: CollectorContext, stream: string): Promise<void> {
  return retryWhileRedisIsTransient(() => ensureGroup(context.redis, stream, context.group), {
    logger: context.logger,
    write: "creation of the collectors' group",
    fields: { stream },
    signal: context.stopping,
  });
}

/** True for the error of reading through a group that does not exist (e.g. the stream was deleted). */
export function isMissingGroup(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOGROUP");
}

function entriesOf(reply: ReadGroupReply): DeliveredEntry[] {
  return reply?.[0]?.[1] ?? [];
}

/**
 * Up to `count` entries never delivered to the group, waiting up to
 * `blockMs` for one to arrive. `connection` must be dedicated: it blocks.
 */
export async function readNewEntries(
  connection: RedisConnection,
  { stream, group, consumer }: GroupReader,
  count: number,
  blockMs: number,
): Promise<DeliveredEntry[]> {
  const reply = (await connection.xreadgroup(
    "GROUP",
    group,
    consumer,
    "COUNT",
    count,
    "BLOCK",
    blockMs,
    "STREAMS",
    stream,
    ">",
  )) as ReadGroupReply;
  return entriesOf(reply);
}

/**
 * Up to `count` entries delivered to this consumer before and not yet
 * acknowledged, after `afterId`: what a collector restarted under the same
 * name still owes.
 */
export async function readOwnPending(
  redis: RedisConnection,
  { stream, group, consumer }: GroupReader,
  afterId: string,
  count: number,
): Promise<DeliveredEntry[]> {
  const reply = (await redis.xreadgroup(
    "GROUP",
    group,
    consumer,
    "COUNT",
    count,
    "STREAMS",
    stream,
    afterId,
  )) as ReadGroupReply;
  return entriesOf(reply);
}

/** One step of a claim scan: the entries claimed and where the scan goes on (`0-0`: it is done). */
export interface ClaimStep {
  entries: DeliveredEntry[];
  nextId: string;
}

/**
 * Claims for this consumer up to `count` pending entries, from `startId`,
 * that no consumer has touched for `minIdleMs` (their consumer died or is
 * stuck). Each claim counts as a delivery.
 */
export async function claimIdleEntries(
  redis: RedisConnection,
  { stream, group, consumer }: GroupReader,
  minIdleMs: number,
  startId: string,
  count: number,
): Promise<ClaimStep> {
  const [nextId, entries] = (await redis.xautoclaim(
    stream,
    group,
    consumer,
    minIdleMs,
    startId,
    "COUNT",
    count,
  )) as [string, DeliveredEntry[], string[]];
  return { entries, nextId };
}

/** How many times the pending entry `id` was delivered; `undefined` when it is not pending. */
export async function deliveryCount(
  redis: RedisConnection,
  stream: string,
  group: string,
  id: string,
): Promise<number | undefined> {
  const rows = (await redis.xpending(stream, group, id, id, 1)) as [
    id: string,
    consumer: string,
    idleMs: number,
    deliveries: number,
  ][];
  return rows[0]?.[3];
}
