/**
 * Checks of the Redis server itself: its version, its eviction policy and
 * its persistence. Each reads `INFO` (and `CONFIG GET` where allowed).
 */
import type { Redis } from "ioredis";
import { type DoctorCheck, passed, problem } from "./check.js";
import { readConfig, readInfo, versionAtLeast } from "./redis-info.js";

/** The oldest Redis errand supports. */
const MINIMUM_REDIS_VERSION = [7, 0, 0] as const;

/** The Redis version is at least {@link MINIMUM_REDIS_VERSION}. */
export async function checkVersion(redis: Redis): Promise<DoctorCheck> {
  const version = (await readInfo(redis, "server")).get("redis_version") ?? "unknown";
  const minimum = MINIMUM_REDIS_VERSION.join(".");
  if (versionAtLeast(version, MINIMUM_REDIS_VERSION)) {
    return passed("redis version", `Redis ${version} (errand needs ${minimum} or newer)`);
  }
  return problem(
    "redis version",
    `Redis ${version} is older than ${minimum}`,
    `upgrade the server to Redis ${minimum} or newer`,
  );
}

/** `maxmemory-policy` is `noeviction`: errand's keys (logs, queues) must never be evicted. */
export async function checkEvictionPolicy(redis: Redis): Promise<DoctorCheck> {
  const policy = (await readInfo(redis, "memory")).get("maxmemory_policy") ?? "unknown";
  if (policy === "noeviction") {
    return passed("maxmemory-policy", "noeviction: Redis refuses writes rather than drop keys");
  }
  return problem(
    "maxmemory-policy",
    `maxmemory-policy is ${policy}: errand's keys must never be evicted`,
    "set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and in redis.conf)",
  );
}

/** Persistence is on: the append-only file, or at least RDB snapshots. */
export async function checkPersistence(redis: Redis): Promise<DoctorCheck> {
  const info = await readInfo(redis, "persistence");
  if (info.get("aof_enabled") === "1") {
    const fsync = await readConfig(redis, "appendfsync");
    const policy = fsync === undefined ? "" : ` (appendfsync ${fsync})`;
    return passed("persistence", `append-only file on${policy}`);
  }
  const save = await readConfig(redis, "save");
  if (save !== undefined && save.trim() !== "") {
    return passed(
      "persistence",
      `RDB snapshots only (save ${save}): a crash loses what was written since the last snapshot; appendonly yes keeps it`,
    );
  }
  const why =
    save === undefined
      ? "the append-only file is off and the snapshot settings cannot be read (CONFIG is disabled, or refused to this user)"
      : "neither the append-only file nor RDB snapshots are on: a restart loses every run";
  return problem(
    "persistence",
    why,
    "turn on the append-only file (CONFIG SET appendonly yes, and appendonly yes in redis.conf)",
  );
}
