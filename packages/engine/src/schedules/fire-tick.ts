/**
 * What one tick of a schedule does (docs/architecture/schedules.md#exactly-once):
 * which ticks it fires (its own, and, when it starts late, the missed ones
 * its `catchUp` names), what the schedule's previous run still running does
 * to it (`overlap`), and the fire itself — errand's own `fire`, under the
 * idempotency key `schedule:<id>:<tick ms>`, so that a tick handled twice
 * (a job run again after its worker died, two catch-ups that overlap) makes
 * one run. Each run carries the schedule and tick in its metadata.
 */
import type { Logger } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import type { FireResult, FireSpec } from "../client/fire-spec.js";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { noteScheduleRun, readScheduleRecord, readScheduleRuns } from "./schedule-records.js";
import { LATE_TICK_MS, MAX_CATCH_UP_TICKS, type ScheduleDefinition } from "./schedule-spec.js";
import { ticksBetween } from "./schedule-times.js";

/** The metadata key naming the schedule that fired a run. */
export const SCHEDULE_METADATA_KEY = "errand.schedule";

/** The metadata key naming the tick (ISO time) a run was fired for. */
export const TICK_METADATA_KEY = "errand.tick";

/** How long a tick's idempotency key names its run: a day, longer than any catch-up reaches back. */
const TICK_KEY_TTL_MS = 24 * 60 * 60 * 1_000;

/** What a tick needs: a client to fire and cancel with, and the schedules' Redis. */
export interface TickContext {
  errand: {
    fire(spec: FireSpec): Promise<FireResult>;
    cancel(runId: string): Promise<unknown>;
    store: Pick<EventStore, "readHead">;
  };
  redis: RedisConnection;
  keys: EngineKeys;
  logger: Logger;
  now: () => number;
}

/** The idempotency key of `scheduleId`'s tick at `tick` ms. */
function tickIdempotencyKey(scheduleId: string, tick: number): string {
  return `schedule:${scheduleId}:${tick}`;
}

/**
 * The ticks a tick job for `tick`, started at `now`, fires: its own when on
 * time (no later than {@link LATE_TICK_MS}); late, none (`catchUp: "none"`),
 * the newest tick due (`last`) or every tick due since it, at most
 * {@link MAX_CATCH_UP_TICKS} (`all`, which also fires the ticks an on-time
 * tick finds due after its own).
 */
function ticksToFire(schedule: ScheduleDefinition, tick: number, now: number): number[] {
  const due = ticksBetween(schedule, tick, Math.max(tick, now), MAX_CATCH_UP_TICKS);
  if (schedule.catchUp === "all") return due;
  if (now - tick <= LATE_TICK_MS) return [tick];
  return schedule.catchUp === "last" ? due.slice(-1) : [];
}

/** Whether the schedule's newest run before `tick` is still running, and its id. */
async function previousRunning(
  context: TickContext,
  scheduleId: string,
  tick: number,
): Promise<string | undefined> {
  const previous = (await readScheduleRuns(context.redis, context.keys, scheduleId, 5)).find(
    (run) => run.tick < tick,
  );
  if (previous === undefined) return undefined;
  const head = await context.errand.store.readHead(previous.runId);
  return head !== undefined && head.settledAt === undefined ? previous.runId : undefined;
}

/**
 * Whether `schedule`'s ticks from `tick` on may fire, by its `overlap` and
 * its newest run before `tick`: `skip` refuses while that run runs,
 * `cancel-previous` cancels it first, `allow` never looks.
 */
async function overlapAllows(
  context: TickContext,
  schedule: ScheduleDefinition,
  tick: number,
): Promise<boolean> {
  if (schedule.overlap === "allow") return true;
  const running = await previousRunning(context, schedule.id, tick);
  if (running === undefined) return true;
  if (schedule.overlap === "cancel-previous") {
    await context.errand.cancel(running);
    return true;
  }
  context.logger.info(
    { schedule: schedule.id, tick: new Date(tick).toISOString(), runningRunId: running },
    "schedule tick skipped: its previous run still runs",
  );
  return false;
}

/** Fires `schedule`'s run for `tick` and notes it; resolves with its runId. */
async function fireOneTick(
  context: TickContext,
  schedule: ScheduleDefinition,
  tick: number,
): Promise<string> {
  const { runId } = await context.errand.fire({
    agent: schedule.agent,
    input: schedule.input ?? null,
    metadata: {
      ...schedule.metadata,
      [SCHEDULE_METADATA_KEY]: schedule.id,
      [TICK_METADATA_KEY]: new Date(tick).toISOString(),
    },
    idempotencyKey: tickIdempotencyKey(schedule.id, tick),
    idempotencyTtlMs: TICK_KEY_TTL_MS,
  });
  await noteScheduleRun(context.redis, context.keys, schedule.id, { runId, tick });
  return runId;
}

/**
 * Handles the tick job of `scheduleId` for `tick`: nothing when the schedule
 * was removed or paused meanwhile; else fires {@link ticksToFire}'s ticks in
 * order, `overlap` checked once, before the first (the ticks of one catch-up
 * are fired together). Resolves with the runIds fired (a deduplicated fire's included).
 */
export async function handleTick(
  context: TickContext,
  scheduleId: string,
  tick: number,
): Promise<string[]> {
  const record = await readScheduleRecord(context.redis, context.keys, scheduleId);
  if (record === undefined || record.paused) return [];
  const now = context.now();
  const due = ticksToFire(record.schedule, tick, now);
  if (now - tick > LATE_TICK_MS) {
    context.logger.info(
      {
        schedule: scheduleId,
        tick: new Date(tick).toISOString(),
        catchUp: record.schedule.catchUp,
        firing: due.length,
      },
      "schedule tick started late: firing what its catchUp names",
    );
  }
  if (due.length === 0 || !(await overlapAllows(context, record.schedule, due[0]!))) return [];
  const fired: string[] = [];
  for (const dueTick of due) fired.push(await fireOneTick(context, record.schedule, dueTick));
  return fired;
}
