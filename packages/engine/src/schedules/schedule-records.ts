/**
 * The schedules as Redis holds them (docs/architecture/schedules.md#redis-layout):
 * one HASH of every schedule's record, and per schedule a ZSET of the runs
 * it made, scored by tick. The BullMQ job scheduler of each schedule lives
 * beside them in the schedules queue (`schedules-queue.ts`); a record
 * without one is paused.
 */

import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import type { ScheduleDefinition } from "./schedule-spec.js";

/** How many of a schedule's newest runs are kept in its runs ZSET. */
const KEPT_SCHEDULE_RUNS = 20;

/** A schedule as stored: its definition, whether it is paused, and when it was written. */
export interface ScheduleRecord {
  schedule: ScheduleDefinition;
  paused: boolean;
  /** ISO time of its first upsert. */
  createdAt: string;
  /** ISO time of its last upsert, pause or resume. */
  updatedAt: string;
}

/** One run a schedule made: its id and the tick it was fired for. */
export interface ScheduleRun {
  runId: string;
  /** The tick, ms since the epoch. */
  tick: number;
}

/** The record of schedule `id`, or `undefined` when there is none. */
export async function readScheduleRecord(
  redis: RedisConnection,
  keys: EngineKeys,
  id: string,
): Promise<ScheduleRecord | undefined> {
  const json = await redis.hget(keys.schedules, id);
  return json === null ? undefined : (JSON.parse(json) as ScheduleRecord);
}

/** Every schedule's record, by id order. */
export async function readScheduleRecords(
  redis: RedisConnection,
  keys: EngineKeys,
): Promise<ScheduleRecord[]> {
  const all = await redis.hgetall(keys.schedules);
  return Object.keys(all)
    .sort()
    .map((id) => JSON.parse(all[id]!) as ScheduleRecord);
}

/** Writes `record` (replacing the schedule's previous one). */
export async function writeScheduleRecord(
  redis: RedisConnection,
  keys: EngineKeys,
  record: ScheduleRecord,
): Promise<void> {
  await redis.hset(keys.schedules, record.schedule.id, JSON.stringify(record));
}

/** Deletes schedule `id`'s record, its runs and its decided ticks; resolves with whether it had a record. */
export async function deleteScheduleRecord(
  redis: RedisConnection,
  keys: EngineKeys,
  id: string,
): Promise<boolean> {
  // One key a command: on a Redis Cluster, the three live in different slots.
  const [removed] = await Promise.all([
    redis.hdel(keys.schedules, id),
    redis.del(keys.scheduleRuns(id)),
    redis.del(keys.scheduleTicks(id)),
  ]);
  return removed === 1;
}

/**
 * Notes that schedule `id` fired `run` (idempotent: a tick's run is one
 * member), keeping the newest {@link KEPT_SCHEDULE_RUNS}.
 */
export async function noteScheduleRun(
  redis: RedisConnection,
  keys: EngineKeys,
  id: string,
  run: ScheduleRun,
): Promise<void> {
  const key = keys.scheduleRuns(id);
  await redis.zadd(key, run.tick, run.runId);
  await redis.zremrangebyrank(key, 0, -(KEPT_SCHEDULE_RUNS + 1));
}

/** The run schedule `id` fired for `tick`, once noted. */
export async function readScheduleRunOfTick(
  redis: RedisConnection,
  keys: EngineKeys,
  id: string,
  tick: number,
): Promise<string | undefined> {
  const [runId] = await redis.zrangebyscore(keys.scheduleRuns(id), tick, tick, "LIMIT", 0, 1);
  return runId;
}

/** The newest `count` runs schedule `id` made, newest first. */
export async function readScheduleRuns(
  redis: RedisConnection,
  keys: EngineKeys,
  id: string,
  count: number = KEPT_SCHEDULE_RUNS,
): Promise<ScheduleRun[]> {
  const flat = await redis.zrevrange(keys.scheduleRuns(id), 0, count - 1, "WITHSCORES");
  const runs: ScheduleRun[] = [];
  for (let i = 0; i < flat.length; i += 2)
    runs.push({ runId: flat[i]!, tick: Number(flat[i + 1]) });
  return runs;
}
