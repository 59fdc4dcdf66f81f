/**
 * Where a phase's Redis bytes went, by kind of key: every key of the server
 * (`SCAN`), its `MEMORY USAGE … SAMPLES 0` (every element, the key's name
 * and its entry in the keyspace included), summed by what the key is — a
 * run's log, head or result, a parent's children, an idempotency key (a
 * spawned child's), the run indexes, the shard streams, BullMQ's
 * kept jobs and event stream — so that `redisBytesPerRun` is explained in
 * every report. `used_memory` also holds what no key's `MEMORY USAGE`
 * counts (the keyspace's and the expiry table's buckets, an entry per key
 * with a TTL, allocator slack): the difference is reported as `unattributed`.
 */
import { isRunId } from "@errand/core/ops";
import type { Redis } from "ioredis";

/** The kinds of key a bench phase leaves, as reported. */
export type KeyKind =
  | "runLog"
  | "runHead"
  | "runBlobs"
  | "result"
  | "children"
  | "idempotency"
  | "runIndexes"
  | "deadlines"
  | "shardStreams"
  | "bullmqJobs"
  | "bullmqEvents"
  | "bullmqOther"
  | "registryAndOther";

/** The kind of `key`, a key of errand's default prefix or of its BullMQ queues. */
export function keyKindOf(key: string): KeyKind {
  if (key.includes(":{queue")) {
    if (key.endsWith(":events")) return "bullmqEvents";
    // A run's job is named by its runId.
    if (isRunId(key.slice(key.lastIndexOf(":") + 1))) return "bullmqJobs";
    return "bullmqOther";
  }
  const shardKey = /^[^{]*:\{s\d+\}:(.*)$/.exec(key)?.[1];
  if (shardKey === undefined) return "registryAndOther";
  if (shardKey.startsWith("run:")) {
    if (shardKey.endsWith(":log")) return "runLog";
    if (shardKey.endsWith(":blobs")) return "runBlobs";
    return "runHead";
  }
  if (shardKey.startsWith("result:")) return "result";
  if (shardKey.startsWith("children:")) return "children";
  if (shardKey.startsWith("idempotency:")) return "idempotency";
  if (shardKey.startsWith("index:")) return "runIndexes";
  if (shardKey === "deadlines") return "deadlines";
  if (shardKey === "events") return "shardStreams";
  return "registryAndOther";
}

/** `MEMORY USAGE` summed by key kind, and the keys counted. */
export interface KeyKindBytes {
  bytes: Partial<Record<KeyKind, number>>;
  keys: number;
}

const SCAN_COUNT = 1_000;

/** Every key of the server, and the bytes `MEMORY USAGE … SAMPLES 0` counts, by kind. */
export async function bytesByKeyKind(redis: Redis): Promise<KeyKindBytes> {
  const bytes: Partial<Record<KeyKind, number>> = {};
  let keys = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "COUNT", SCAN_COUNT);
    cursor = next;
    const usages = await Promise.all(
      found.map((key) => redis.memory("USAGE", key, "SAMPLES", 0) as Promise<number | null>),
    );
    found.forEach((key, i) => {
      const kind = keyKindOf(key);
      bytes[kind] = (bytes[kind] ?? 0) + (usages[i] ?? 0);
    });
    keys += found.length;
  } while (cursor !== "0");
  return { bytes, keys };
}

/** The bytes of several servers (a cluster's masters) by kind, together. */
export function sumKeyKindBytes(servers: readonly KeyKindBytes[]): KeyKindBytes {
  const bytes: Partial<Record<KeyKind, number>> = {};
  for (const server of servers) {
    for (const [kind, kindBytes] of Object.entries(server.bytes)) {
      bytes[kind as KeyKind] = (bytes[kind as KeyKind] ?? 0) + kindBytes;
    }
  }
  return { bytes, keys: servers.reduce((sum, server) => sum + server.keys, 0) };
}

/**
 * The growth from `before` to `after` per run, by kind (kinds that did not
 * grow left out), with `unattributed`: the growth of `used_memory` that no
 * key's `MEMORY USAGE` accounts for.
 */
export function bytesPerRunByKind(
  before: KeyKindBytes,
  after: KeyKindBytes,
  usedMemoryGrowth: number,
  runs: number,
): Record<string, number> {
  const perRun: Record<string, number> = {};
  let attributed = 0;
  for (const [kind, bytes] of Object.entries(after.bytes)) {
    const growth = bytes - (before.bytes[kind as KeyKind] ?? 0);
    attributed += growth;
    if (growth !== 0) perRun[kind] = growth / runs;
  }
  perRun.unattributed = (usedMemoryGrowth - attributed) / runs;
  return perRun;
}
