/**
 * What one tick of a schedule does (docs/architecture/schedules.md#exactly-once):
 * which ticks it fires (its own, and, when it starts late, the missed ones
 * its `catchUp` names), what the schedule's previous run still running does
 * to it (`overlap`: one verdict a tick, whichever processes handle it), and
 * the fire itself — errand's own `fire`, under the idempotency key
 * `schedule:<id>:<tick ms>`, so that a tick handled twice (a job run again
 * after its worker died, two catch-ups that overlap) makes one run. Each run
 * carries the schedule and tick in its metadata.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError, isErrandError } from "@errand/core";
import type { Logger } from "@errand/runtime";
import type { RunHead } from "@errand/store";
import type { FireResult, FireSpec } from "../client/fire-spec.js";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { noteScheduleRun, readScheduleRecord, readScheduleRunOfTick } from "./schedule-records.js";
import { LATE_TICK_MS, MAX_CATCH_UP_TICKS, type ScheduleDefinition } from "./schedule-spec.js";
import { ticksBetween } from "./schedule-times.js";
import { decideTicks, type PreviousFire } from "./tick-decisions.js";

/** The metadata key naming the schedule that fired a run. */
export const SCHEDULE_METADATA_KEY = "errand.schedule";

/** The metadata key naming the tick (ISO time) a run was fired for. */
export const TICK_METADATA_KEY = "errand.tick";

/** How long a tick's idempotency key names its run: a day, longer than any catch-up reaches back. */
const TICK_KEY_TTL_MS = 24 * 60 * 60 * 1_000;

/** What a tick needs: what fires, cancels and reads runs, and the schedules' Redis. */
export interface TickContext {
  fire(spec: FireSpec): Promise<FireResult>;
  /** Cancels run `runId`, saying why. */
  cancel(runId: string, reason: string): Promise<unknown>;
  readHead(runId: string): Promise<RunHead | undefined>;
  redis: RedisConnection;
  keys: EngineKeys;
  logger: Logger;
  now: () => number;
}

/**
 * How long a tick decided to fire whose run is not noted yet counts as still
 * being fired, in ms: past it, the job that was firing it is taken to have
 * failed for good, and its run to be none.
 */
const PENDING_FIRE_MS = 2 * 60_000;

/** How many times a tick is decided again because another tick fired meanwhile, before its job fails. */
const MAX_DECIDE_TRIES = 10;

/** How long `cancel-previous` waits for the run of a previous tick still being fired, and how often it looks. */
const PENDING_RUN_WAIT = { tries: 20, intervalMs: 250 };

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

/** A fired tick as the overlap check sees it: its run (once noted) and whether that still runs. */
interface PreviousRun extends PreviousFire {
  runId?: string;
}

/** Where the run of `scheduleId`'s tick `previous`, decided to fire at `decidedAt`, stands. */
async function lookUpPrevious(
  context: TickContext,
  scheduleId: string,
  previous: { tick: number; decidedAt: number },
): Promise<PreviousRun> {
  const { tick, decidedAt } = previous;
  const runId = await readScheduleRunOfTick(context.redis, context.keys, scheduleId, tick);
  if (runId === undefined) return { tick, running: context.now() - decidedAt < PENDING_FIRE_MS };
  const head = await context.readHead(runId);
  return { tick, runId, running: head !== undefined && head.settledAt === undefined };
}

/** The run of `previous`, waiting a little for one still being fired; `undefined` when none comes. */
async function runOfPrevious(
  context: TickContext,
  scheduleId: string,
  previous: PreviousRun,
): Promise<string | undefined> {
  for (let tries = 0; previous.runId === undefined && tries < PENDING_RUN_WAIT.tries; tries++) {
    await delay(PENDING_RUN_WAIT.intervalMs);
    const runId = await readScheduleRunOfTick(
      context.redis,
      context.keys,
      scheduleId,
      previous.tick,
    );
    if (runId !== undefined) return runId;
  }
  return previous.runId;
}

/**
 * Which of `ticks` (oldest first) may fire, by `schedule`'s `overlap`:
 * `allow` all of them; else each tick's one verdict, decided once across
 * every process (`tick-decisions.ts`) against the schedule's newest tick
 * fired before them — while its run runs, `skip` skips them and
 * `cancel-previous` fires them, and the one process that decided so cancels that run.
 */
async function overlapAllows(
  context: TickContext,
  schedule: ScheduleDefinition,
  ticks: readonly number[],
): Promise<boolean[]> {
  if (schedule.overlap === "allow") return ticks.map(() => true);
  const key = context.keys.scheduleTicks(schedule.id);
  let previous: PreviousRun | undefined;
  for (let tries = 0; tries < MAX_DECIDE_TRIES; tries++) {
    const decision = await decideTicks(
      context.redis,
      key,
      schedule.overlap,
      previous,
      ticks,
      context.now(),
    );
    if (!decision.decided) {
      previous =
        decision.previous && (await lookUpPrevious(context, schedule.id, decision.previous));
      continue;
    }
    const at = { schedule: schedule.id, tick: new Date(ticks[0]!).toISOString() };
    if (decision.cancelPrevious) {
      const runId = await runOfPrevious(context, schedule.id, previous!);
      if (runId === undefined) {
        context.logger.warn(at, "schedule tick could not cancel its previous run: it never came");
      } else {
        await context.cancel(runId, `schedule ${schedule.id}: a tick came while it ran`);
      }
    }
    if (decision.fire.includes(false)) {
      context.logger.info(
        { ...at, skipped: decision.fire.filter((fire) => !fire).length },
        "schedule tick skipped: its previous run still runs, or a later tick was decided first",
      );
    }
    return decision.fire;
  }
  throw new ErrandError(
    "internal",
    `schedule ${schedule.id}: its tick was decided again ${MAX_DECIDE_TRIES} times, each time another tick fired first`,
    { retryable: true },
  );
}

/**
 * The run a refused fire made all the same (`details.runId`: with
 * `durability: "replicated"`, a run no replica confirmed in time), else undefined.
 */
function firedAllTheSame(error: unknown): string | undefined {
  const runId = isErrandError(error) ? error.details?.runId : undefined;
  return typeof runId === "string" ? runId : undefined;
}

/**
 * Fires `schedule`'s run for `tick` and notes it; resolves with its runId.
 * A fire refused after its run was made (no replica confirmed it in time)
 * notes that run all the same — it runs, unless its master fails over first,
 * and `overlap` must see it, not a tick still being fired — then throws, so
 * that the tick's job fails with the reason
 * (docs/architecture/schedules.md#durability).
 */
async function fireOneTick(
  context: TickContext,
  schedule: ScheduleDefinition,
  tick: number,
): Promise<string> {
  const note = (runId: string) =>
    noteScheduleRun(context.redis, context.keys, schedule.id, { runId, tick });
  let runId: string;
  try {
    ({ runId } = await context.fire({
      agent: schedule.agent,
      input: schedule.input ?? null,
      metadata: {
        ...schedule.metadata,
        [SCHEDULE_METADATA_KEY]: schedule.id,
        [TICK_METADATA_KEY]: new Date(tick).toISOString(),
      },
      idempotencyKey: tickIdempotencyKey(schedule.id, tick),
      idempotencyTtlMs: TICK_KEY_TTL_MS,
    }));
  } catch (error) {
    const made = firedAllTheSame(error);
    if (made !== undefined) await note(made);
    throw error;
  }
  await note(runId);
  return runId;
}

/**
 * Handles the tick job of `scheduleId` for `tick`: nothing when the schedule
 * was removed or paused meanwhile; else fires, in order, those of
 * {@link ticksToFire}'s ticks that `overlap` lets fire (the ticks of one
 * catch-up are decided together). Resolves with the runIds fired (a deduplicated fire's included).
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
  if (due.length === 0) return [];
  const allowed = await overlapAllows(context, record.schedule, due);
  const fired: string[] = [];
  for (const [index, dueTick] of due.entries()) {
    if (allowed[index]) fired.push(await fireOneTick(context, record.schedule, dueTick));
  }
  return fired;
}
