/**
 * `errand.schedules`: upsert, list, pause, resume and remove schedules
 * (docs/architecture/schedules.md). `upsert` checks everything before it
 * writes anything — the spec, the cron expression and time zone, and the run
 * each tick would fire, through fire's own preflight (agent, input schema,
 * metadata limits) — then writes the schedule's record and its BullMQ job
 * scheduler. Pausing removes the job scheduler and keeps the record;
 * resuming makes it again.
 */
import { ErrandError } from "@errand/core";
import type { Queue } from "bullmq";
import type { FireContext } from "../client/fire-context.js";
import { preflightFire } from "../client/fire-preflight.js";
import { createPreflightLookups } from "../client/preflight-lookups.js";
import { SCHEDULE_METADATA_KEY, TICK_METADATA_KEY } from "./fire-tick.js";
import {
  deleteScheduleRecord,
  readScheduleRecord,
  readScheduleRecords,
  readScheduleRuns,
  type ScheduleRecord,
  writeScheduleRecord,
} from "./schedule-records.js";
import { parseScheduleSpec, type ScheduleDefinition } from "./schedule-spec.js";
import { checkScheduleTimes } from "./schedule-times.js";
import { type ScheduleTickData, upsertTickScheduler } from "./schedules-queue.js";

/** How many of its newest runs `list` shows of each schedule. */
const LISTED_RUNS = 5;

/** One schedule as `list` shows it. */
export interface ScheduleView extends ScheduleDefinition {
  paused: boolean;
  createdAt: string;
  updatedAt: string;
  /** When it fires next (ISO); absent while paused. */
  nextFireAt?: string;
  /** The tick of the newest run it made (ISO); absent before its first. */
  lastFireAt?: string;
  /** Its newest runs, newest first: each run's id and tick (ISO). */
  lastRuns: { runId: string; tick: string }[];
}

/** The schedules of a client. */
export interface Schedules {
  /**
   * Creates schedule `spec.id`, or replaces it (a paused one stays paused).
   * Refused with nothing written: `invalid_spec` (a malformed spec, a bad
   * cron expression or time zone, `everyMs` under `MIN_SCHEDULE_INTERVAL_MS`),
   * `unknown_agent`, `invalid_input` (the agent's input schema refuses the
   * input), and fire's other preflight refusals.
   */
  upsert(spec: unknown): Promise<ScheduleView>;
  /** Every schedule, by id, with its next and last fire and its newest runs. */
  list(): Promise<ScheduleView[]>;
  /** Stops schedule `id` ticking until resumed; `not_found` when there is none. */
  pause(id: string): Promise<ScheduleView>;
  /** Lets paused schedule `id` tick again from its next tick; `not_found` when there is none. */
  resume(id: string): Promise<ScheduleView>;
  /** Deletes schedule `id`, its job scheduler and its runs' index (the runs stay); `not_found` when there is none. */
  remove(id: string): Promise<void>;
}

function scheduleNotFound(id: string): ErrandError {
  return new ErrandError(
    "not_found",
    `schedule ${JSON.stringify(id)} does not exist; see \`errand schedules list\``,
    {
      details: { scheduleId: id },
    },
  );
}

/**
 * The schedules of the client whose fire context is `context`, ticking
 * through the queue `schedulesQueue` opens (called at the first call that
 * needs it: a client that never touches schedules opens no queue, and so
 * writes nothing when created).
 */
export function createSchedules(
  context: FireContext,
  schedulesQueue: () => Queue<ScheduleTickData>,
): Schedules {
  const { redis, keys } = context;
  const nowMs = () => context.now().getTime();

  async function view(record: ScheduleRecord): Promise<ScheduleView> {
    const { id } = record.schedule;
    const [scheduler, runs] = await Promise.all([
      record.paused ? undefined : schedulesQueue().getJobScheduler(id),
      readScheduleRuns(redis, keys, id, LISTED_RUNS),
    ]);
    const lastRuns = runs.map((run) => ({
      runId: run.runId,
      tick: new Date(run.tick).toISOString(),
    }));
    return {
      ...record.schedule,
      paused: record.paused,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      ...(scheduler?.next === undefined
        ? {}
        : { nextFireAt: new Date(scheduler.next).toISOString() }),
      ...(lastRuns[0] === undefined ? {} : { lastFireAt: lastRuns[0].tick }),
      lastRuns,
    };
  }

  async function requireRecord(id: string): Promise<ScheduleRecord> {
    const record = await readScheduleRecord(redis, keys, id);
    if (record === undefined) throw scheduleNotFound(id);
    return record;
  }

  async function setPaused(id: string, paused: boolean): Promise<ScheduleView> {
    const record = await requireRecord(id);
    const updated = { ...record, paused, updatedAt: context.now().toISOString() };
    await writeScheduleRecord(redis, keys, updated);
    if (paused) await schedulesQueue().removeJobScheduler(id);
    else await upsertTickScheduler(schedulesQueue(), record.schedule, nowMs());
    return view(updated);
  }

  return {
    async upsert(spec) {
      const schedule = parseScheduleSpec(spec);
      checkScheduleTimes(schedule);
      // The run a tick would fire, as fire's preflight checks it; nothing is written.
      await preflightFire(
        {
          agent: schedule.agent,
          input: schedule.input ?? null,
          metadata: {
            ...schedule.metadata,
            [SCHEDULE_METADATA_KEY]: schedule.id,
            [TICK_METADATA_KEY]: context.now().toISOString(),
          },
        },
        createPreflightLookups(redis, keys, context.store),
        context,
      );
      const previous = await readScheduleRecord(redis, keys, schedule.id);
      const at = context.now().toISOString();
      const record: ScheduleRecord = {
        schedule,
        paused: previous?.paused ?? false,
        createdAt: previous?.createdAt ?? at,
        updatedAt: at,
      };
      await writeScheduleRecord(redis, keys, record);
      if (!record.paused) await upsertTickScheduler(schedulesQueue(), schedule, nowMs());
      return view(record);
    },
    async list() {
      return Promise.all((await readScheduleRecords(redis, keys)).map(view));
    },
    pause: (id) => setPaused(id, true),
    resume: (id) => setPaused(id, false),
    async remove(id) {
      await requireRecord(id);
      await schedulesQueue().removeJobScheduler(id);
      await deleteScheduleRecord(redis, keys, id);
    },
  };
}
