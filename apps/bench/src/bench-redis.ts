/**
 * The bench's own Redis: always a fresh server started for the run — never
 * the one `REDIS_URL` names, since every phase begins with FLUSHALL — with
 * persistence off (no RDB snapshots, no append-only file), plus what the
 * figures read from it: `INFO commandstats` call counts, `used_memory`, the
 * version and the persistence settings.
 */
import { ErrandError } from "@errand/core";
import type { Durability } from "@errand/engine";
import type { FireBudget } from "@errand/engine/ops";
import { type RedisAddress, sendRedisCommand, startRedis, waitUntil } from "@errand/local-redis";
import { Redis } from "ioredis";

/** A Redis started for the bench. */
export interface BenchRedis {
  url: string;
  /**
   * The durability errand's parts append with: `"replicated"` when the
   * server was started with a replica (each settling append waits for it).
   */
  durability: Durability;
  /**
   * The budget every errand run of the bench is fired with (`--budget`), to
   * measure what budgets cost; none by default. Set by `runBench`.
   */
  budget?: FireBudget;
  host: string;
  port: number;
  /** A command connection of the bench's own (not errand's, not BullMQ's). */
  admin: Redis;
  /** The server's version, e.g. `7.0.15`. */
  version: string;
  /** Empties the server between phases. */
  flush(): Promise<void>;
  /** Closes the admin connection, stops the server and removes its files. */
  stop(): Promise<void>;
}

/**
 * Starts a private `redis-server` (or a container when none is on PATH) with
 * `REDIS_URL` hidden from `startRedis`, so a server of the user's is never
 * used, let alone flushed. Throws `redis_unavailable` when no Redis can be
 * started, and `internal` when the server has persistence on. With
 * `durability: "replicated"` a second server replicates the first, and
 * errand's parts wait for it on every settling append.
 */
export async function startBenchRedis(
  durability: Durability = "acknowledged",
): Promise<BenchRedis> {
  const given = process.env.REDIS_URL;
  delete process.env.REDIS_URL;
  let server: Awaited<ReturnType<typeof startRedis>>;
  let replica: Awaited<ReturnType<typeof startRedis>> | undefined;
  try {
    server = await startRedis({ maxmemoryPolicy: "noeviction" });
    if (durability === "replicated") replica = await startRedis({ maxmemoryPolicy: "noeviction" });
  } finally {
    if (given !== undefined) process.env.REDIS_URL = given;
  }
  const admin = new Redis(server.url, { maxRetriesPerRequest: null });
  const stopServers = async () => {
    admin.disconnect();
    await Promise.all([server.stop(), replica?.stop()]);
  };
  try {
    await requirePersistenceOff(admin);
    if (replica !== undefined) await replicate(server, replica);
    const version = (await readInfo(admin, "server")).get("redis_version") ?? "unknown";
    return {
      url: server.url,
      durability,
      host: server.host,
      port: server.port,
      admin,
      version,
      flush: async () => {
        await admin.flushall();
      },
      stop: stopServers,
    };
  } catch (error) {
    await stopServers();
    throw error;
  }
}

/** How long a replica may take to be in sync with the bench's server. */
const REPLICA_SYNC_TIMEOUT_MS = 30_000;

/** Makes `replica` replicate `server` and resolves once its link is up. */
async function replicate(server: RedisAddress, replica: RedisAddress): Promise<void> {
  await sendRedisCommand(replica, ["REPLICAOF", server.host, String(server.port)]);
  const linked = await waitUntil(
    async () => {
      const info = await sendRedisCommand(replica, ["INFO", "replication"]).catch(() => "");
      return /^master_link_status:up/m.test(info) ? true : undefined;
    },
    { timeoutMs: REPLICA_SYNC_TIMEOUT_MS, intervalMs: 100 },
  );
  if (!linked) {
    throw new ErrandError(
      "redis_unavailable",
      `the bench's replica was not in sync within ${REPLICA_SYNC_TIMEOUT_MS} ms`,
    );
  }
}

/** Throws unless the server neither snapshots nor writes an append-only file. */
async function requirePersistenceOff(redis: Redis): Promise<void> {
  const [, save] = (await redis.config("GET", "save")) as [string, string];
  const [, appendonly] = (await redis.config("GET", "appendonly")) as [string, string];
  if (save !== "" || appendonly !== "no") {
    throw new ErrandError(
      "internal",
      `the bench's Redis must run without persistence, but save is "${save}" and appendonly is "${appendonly}"`,
    );
  }
}

/** One section of `INFO` as `field → value`. */
export async function readInfo(redis: Redis, section: string): Promise<Map<string, string>> {
  const text = await redis.info(section);
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/**
 * The calls of each command since the server started (or `CONFIG
 * RESETSTAT`), from `INFO commandstats`, by command name (`evalsha`,
 * `xadd`, `client|setname`). Commands a Lua script runs are counted too,
 * each as a call of its own.
 */
export async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const [field, value] of await readInfo(redis, "commandstats")) {
    const counted = /(?:^|,)calls=(\d+)/.exec(value);
    if (counted) calls.set(field.replace(/^cmdstat_/, ""), Number(counted[1]));
  }
  return calls;
}

/** The commands called between two readings of {@link commandCalls}, per unit of work (a run, a job). */
export interface CommandsPerUnit {
  /** Every command, in all. */
  total: number;
  /** By command name (`evalsha`, `xadd`, …), most called first; names not called left out. */
  byName: Record<string, number>;
}

/** The commands called between the readings `before` and `after`, divided by `units`. */
export function commandsPerUnit(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  units: number,
): CommandsPerUnit {
  const byName = [...after]
    .map(([name, calls]): [string, number] => [name, (calls - (before.get(name) ?? 0)) / units])
    .filter(([, perUnit]) => perUnit > 0)
    .sort(([, a], [, b]) => b - a);
  const total = byName.reduce((sum, [, perUnit]) => sum + perUnit, 0);
  return { total, byName: Object.fromEntries(byName) };
}

/** The calls of every command since the server started (see {@link commandCalls}). */
export async function totalCommandCalls(redis: Redis): Promise<number> {
  let total = 0;
  for (const calls of (await commandCalls(redis)).values()) total += calls;
  return total;
}

/** `used_memory`: the bytes Redis has allocated. */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number((await readInfo(redis, "memory")).get("used_memory") ?? Number.NaN);
}

/** The bytes `MEMORY USAGE … SAMPLES 0` counts for `keys` together (every element; 0 for a missing key). */
export async function keysMemoryUsage(redis: Redis, keys: readonly string[]): Promise<number> {
  const usages = await Promise.all(
    keys.map((key) => redis.memory("USAGE", key, "SAMPLES", 0) as Promise<number | null>),
  );
  return usages.reduce<number>((total, usage) => total + (usage ?? 0), 0);
}
