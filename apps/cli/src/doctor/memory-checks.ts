/**
 * Checks that Redis can still take errand's writes: how close its memory is
 * to `maxmemory` (at the limit, with `noeviction`, Redis refuses every write:
 * fires, appends, results), and a write probe — one short-lived key under the
 * prefix — which also finds the other reasons a server refuses writes.
 */
import type { EngineKeys } from "@errand/engine";
import type { Redis } from "ioredis";
import { describeError } from "../output.js";
import { type DoctorCheck, passed, problem } from "./check.js";
import { explainClusterReply } from "./cluster-checks.js";
import { readInfo } from "./redis-info.js";

/** From this share of `maxmemory` on, memory counts as a problem. */
export const NEAR_MAXMEMORY = 0.9;

/** How long the write probe's key lives, in ms. */
const PROBE_TTL_MS = 10_000;

/** What `INFO memory` says about the limit, as `assessMemory` needs it. */
export interface MemoryFigures {
  /** `used_memory`, in bytes. */
  used: number;
  /** `mem_not_counted_for_evict`: replication and AOF buffers, which the limit leaves out. */
  notCounted: number;
  /** `maxmemory` in bytes; 0 for no limit. */
  maxmemory: number;
}

const MEMORY_FIX =
  "raise maxmemory (CONFIG SET maxmemory <bytes>, and in redis.conf), or make room: settled runs go when their retention ends (retentionSeconds), so a shorter one keeps fewer";

/** `1536` → `1.50 KiB`. */
function bytes(count: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(2)} ${units[unit]}`;
}

/** The memory check's verdict on `figures`. */
export function assessMemory(figures: MemoryFigures): DoctorCheck {
  const name = "memory";
  const counted = Math.max(0, figures.used - figures.notCounted);
  if (figures.maxmemory === 0) {
    return passed(
      name,
      `${bytes(figures.used)} used, no maxmemory: Redis grows until the machine's memory runs out`,
    );
  }
  const share = counted / figures.maxmemory;
  const usage = `${bytes(counted)} used of maxmemory ${bytes(figures.maxmemory)} (${Math.round(share * 100)}%)`;
  if (share >= 1) {
    return problem(
      name,
      `${usage}: Redis is full and refuses every write (fire, appends, results)`,
      MEMORY_FIX,
    );
  }
  if (share >= NEAR_MAXMEMORY) {
    return problem(
      name,
      `${usage}: near the limit, where Redis refuses every write (fire, appends, results)`,
      MEMORY_FIX,
    );
  }
  return passed(name, usage);
}

/** How full Redis is, from `INFO memory`. */
export async function checkMemory(redis: Redis): Promise<DoctorCheck> {
  const info = await readInfo(redis, "memory");
  const figure = (field: string) => Number(info.get(field) ?? 0) || 0;
  return assessMemory({
    used: figure("used_memory"),
    notCounted: figure("mem_not_counted_for_evict"),
    maxmemory: figure("maxmemory"),
  });
}

/** The fix for a refused write, by the server's error. */
function writeFix(message: string): string {
  if (/^OOM\b/.test(message)) return MEMORY_FIX;
  if (/^MISCONF\b/.test(message)) {
    return "Redis stops writes when it cannot persist: read its log (a full disk, a failed snapshot), fix that, and writes resume";
  }
  if (/^READONLY\b/.test(message)) return "this is a replica: point REDIS_URL at the master";
  if (/^NOPERM\b/.test(message)) {
    return "the user may not write under the prefix: give it the ACL errand doctor --acl prints";
  }
  return "read the error above: every write errand makes is refused the same way";
}

/**
 * Redis takes a write under the prefix: a key set to expire within seconds,
 * `probe` (default `<prefix>:doctor:write-probe`; on a cluster, a key of a slot
 * the master being checked serves).
 */
export async function checkWrites(
  redis: Redis,
  keys: EngineKeys,
  probe = `${keys.prefix}:doctor:write-probe`,
): Promise<DoctorCheck> {
  const name = "writes";
  try {
    await redis.set(probe, new Date().toISOString(), "PX", PROBE_TTL_MS);
    return passed(name, `Redis took a write (${probe}, expiring in ${PROBE_TTL_MS / 1000}s)`);
  } catch (error) {
    const message = describeError(error);
    const reply = explainClusterReply(message);
    if (reply)
      return problem(name, `Redis refuses writes: ${reply.meaning} (${message})`, reply.fix);
    const why = /^OOM\b/.test(message)
      ? "Redis is out of memory and refuses writes"
      : "Redis refuses writes";
    return problem(name, `${why}: ${message}`, writeFix(message));
  }
}
