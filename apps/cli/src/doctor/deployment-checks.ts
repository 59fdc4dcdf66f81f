/**
 * Checks of errand's own processes, read from what they leave in Redis:
 * worker heartbeats, the collectors' consumer groups and their dead letters.
 */
import type { EngineKeys, RedisConnection } from "@errand/engine";
import {
  DEFAULT_COLLECTOR_GROUP,
  DEFAULT_HEARTBEAT_MS,
  readWorkerHeartbeats,
  type WorkerHeartbeat,
} from "@errand/engine/ops";
import { DEFAULT_SHARDS } from "@errand/store/ops";

import { type DoctorCheck, passed, problem } from "./check.js";

/** A heartbeat older than this many intervals counts as a worker gone. */
const STALE_AFTER_BEATS = 3;

function secondsAgo(iso: string, now: Date): string {
  const ms = now.getTime() - Date.parse(iso);
  return Number.isFinite(ms) ? `${Math.max(0, Math.round(ms / 1000))}s ago` : "at an unknown time";
}

function isFresh(heartbeat: WorkerHeartbeat, now: Date): boolean {
  const age = now.getTime() - Date.parse(heartbeat.lastSeenAt);
  return age <= STALE_AFTER_BEATS * DEFAULT_HEARTBEAT_MS;
}

function describeWorker(heartbeat: WorkerHeartbeat, now: Date): string {
  const agents = heartbeat.agents.length === 0 ? "no agents" : heartbeat.agents.join(", ");
  return `${heartbeat.workerId} (${agents}; seen ${secondsAgo(heartbeat.lastSeenAt, now)})`;
}

/** At least one worker has beaten recently. */
export async function checkWorkers(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date,
): Promise<DoctorCheck> {
  const name = "worker heartbeats";
  const heartbeats = await readWorkerHeartbeats(redis, keys);
  const start =
    "start one: errand worker --agents <module> (errand up runs one for local development)";
  if (heartbeats.length === 0) {
    return problem(name, `no worker has announced itself under ${keys.workers}`, start);
  }
  const fresh = heartbeats.filter((heartbeat) => isFresh(heartbeat, now));
  const stale = heartbeats.filter((heartbeat) => !isFresh(heartbeat, now));
  const staleText = stale.map((heartbeat) => describeWorker(heartbeat, now)).join("; ");
  if (fresh.length === 0) {
    return problem(
      name,
      `every worker's heartbeat is stale: ${staleText}`,
      `the workers stopped or cannot reach this Redis; ${start}`,
    );
  }
  const live = fresh.map((heartbeat) => describeWorker(heartbeat, now)).join("; ");
  const staleNote = stale.length === 0 ? "" : `; stale: ${staleText}`;
  return passed(name, `${fresh.length} live: ${live}${staleNote}`);
}

/** `XINFO GROUPS` of an existing stream, as field maps. */
async function streamGroups(redis: RedisConnection, key: string): Promise<Map<string, unknown>[]> {
  const groups = (await redis.xinfo("GROUPS", key)) as unknown[][];
  return groups.map((fields) => {
    const map = new Map<string, unknown>();
    for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), fields[i + 1]);
    return map;
  });
}

/** Every shard stream with events is read by the collectors' group, and no entry was dead-lettered. */
export async function checkCollectors(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<DoctorCheck> {
  const name = "collectors";
  const unread: number[] = [];
  const dead: string[] = [];
  let streams = 0;
  for (let shard = 0; shard < DEFAULT_SHARDS; shard++) {
    const stream = keys.shardEvents(shard);
    if ((await redis.exists(stream)) === 1) {
      streams += 1;
      const groups = await streamGroups(redis, stream);
      if (!groups.some((group) => group.get("name") === DEFAULT_COLLECTOR_GROUP))
        unread.push(shard);
    }
    const deadLetters = await redis.xlen(keys.deadLetters(shard));
    if (deadLetters > 0) dead.push(`${keys.deadLetters(shard)} (${deadLetters})`);
  }
  if (unread.length > 0) {
    return problem(
      name,
      `no collector has read the events of shard ${unread.join(", ")}: runs there never get a result`,
      "start one: errand collector (errand up runs one for local development)",
    );
  }
  if (dead.length > 0) {
    return problem(
      name,
      `collectors gave up on entries they could not fold: ${dead.join(", ")}`,
      "read them (XRANGE <key> - + COUNT 10): each holds the entry and the error; fix the cause, then remove them (DEL <key>)",
    );
  }
  return passed(
    name,
    streams === 0
      ? "no events yet"
      : `the ${DEFAULT_COLLECTOR_GROUP} group reads all ${streams} shard stream(s) with events; no dead letters`,
  );
}
