/**
 * errand latency with the append-only file on, as a durable deployment runs
 * it: the bench's server switched to `appendonly yes` with `appendfsync
 * everysec` for the phase (its first rewrite finished before the clock
 * starts), then back to persistence off.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError } from "@errand/core";
import { type BenchRedis, readInfo } from "../bench-redis.js";
import { type ErrandLatency, type LatencyLayout, measureErrandLatency } from "./errand-latency.js";

/** How often the phase checks whether the append-only file's first rewrite is done. */
const REWRITE_POLL_MS = 20;
/** The longest the first rewrite may take. */
const REWRITE_TIMEOUT_MS = 30_000;

/** Resolves once the server writes its append-only file and no rewrite is running or due. */
async function aofReady(redis: BenchRedis): Promise<void> {
  const deadline = Date.now() + REWRITE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const persistence = await readInfo(redis.admin, "persistence");
    const idle =
      persistence.get("aof_enabled") === "1" &&
      persistence.get("aof_rewrite_in_progress") === "0" &&
      persistence.get("aof_rewrite_scheduled") === "0";
    if (idle) return;
    await delay(REWRITE_POLL_MS);
  }
  throw new ErrandError("internal", "the bench's append-only file was not ready in time");
}

/** What the AOF latency phase measured: the latencies, and the file the server wrote meanwhile. */
export interface ErrandLatencyAof extends ErrandLatency {
  /** The append-only file's growth over the phase, in bytes (`aof_current_size`). */
  aofBytes: number;
}

/** The append-only file's size (`aof_current_size`), in bytes. */
async function aofSize(redis: BenchRedis): Promise<number> {
  return Number((await readInfo(redis.admin, "persistence")).get("aof_current_size"));
}

/**
 * {@link measureErrandLatency} with `appendonly yes` and `appendfsync
 * everysec` on the bench's server, errand's parts laid out as `layout`;
 * persistence is off again afterwards.
 */
export async function measureErrandLatencyAof(
  redis: BenchRedis,
  runs: number,
  ratePerSec: number,
  concurrency: number,
  layout: LatencyLayout = "one-process",
): Promise<ErrandLatencyAof> {
  await redis.flush();
  await redis.admin.config("SET", "appendfsync", "everysec");
  await redis.admin.config("SET", "appendonly", "yes");
  try {
    await aofReady(redis);
    const sizeBefore = await aofSize(redis);
    const latency = await measureErrandLatency(redis, runs, ratePerSec, concurrency, layout);
    return { ...latency, aofBytes: (await aofSize(redis)) - sizeBefore };
  } finally {
    await redis.admin.config("SET", "appendonly", "no");
  }
}
