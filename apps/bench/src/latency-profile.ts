/**
 * Where the time of a latency phase's runs goes. Each run is timed through
 * the milestones of its way from `fire` to `result`, one after the other:
 *
 * - `pickup`: `fire` called → the worker started the run (its `run-started`:
 *   the job enqueued, BullMQ's worker woken, the job moved to active, the
 *   run's log read), in two parts: `take`, `fire` called → the worker's
 *   processor took the job (`fire`'s writes, BullMQ's hand-over), and
 *   `start`, → its `run-started` (the log read and folded, the attempt
 *   decided);
 * - `step`: → the run's terminal event (the agent loop, one step);
 * - `stream`: → a collector's read returned it (the worker's append, the
 *   shard stream's delivery to the collector's blocking read);
 * - `index`: → its settled announcement reached the client's subscriber (the
 *   fold, the batch's index call storing the result, its PUBLISH);
 * - `wake`: → `result({ waitMs })` returned (the waiter woken, the result read).
 *
 * They add up to the run's latency. Beside them, `fire`: `fire` called →
 * it resolved (overlapping `pickup`: the worker may start the run first).
 * The worker's `run-started` and terminal event are the events' `at` (whole
 * milliseconds); the job taken, the collector's read and the announcement
 * heard come from errand's diagnostics channels (`errand:worker:job-taken`,
 * `errand:collector:batch-read`, `errand:waiter:settled-heard`: the bench
 * opens no connection of its own in the measured process); the others are
 * this process's clock. Meanwhile the profile watches this process's
 * event-loop delay, garbage-collection pauses and the bytes its heap
 * allocated (per timed run: the bench's own bookkeeping of a run, its
 * milestones and its promise, included), and the server's latency
 * monitor (`LATENCY LATEST`, events of 1 ms or more). When the worker and
 * the collector run in another process, that process records the job taken
 * and the read (`process-watch.ts`) and the profile is given them at the end.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { isTerminalEventType } from "@errand/core";
import type { Errand } from "@errand/engine";
import { SETTLED_HEARD_CHANNEL, type SettledHeard } from "@errand/engine/ops";
import type { BenchRedis } from "./bench-redis.js";
import {
  type PartMilestones,
  type ProcessFigures,
  recordPartMilestones,
  watchProcess,
} from "./process-watch.js";
import { percentile } from "./stats.js";

/** The stages of a run's latency, in order (see the file's comment). */
export const LATENCY_STAGES = [
  "fire",
  "pickup",
  "take",
  "start",
  "step",
  "stream",
  "index",
  "wake",
] as const;

/** One figure per stage. */
export type StageFigures = Record<(typeof LATENCY_STAGES)[number], number>;

/**
 * What a latency phase's profile found. The event-loop delay and the GC
 * pauses ({@link ProcessFigures}) are the bench process's: the client's, and
 * the worker's and the collector's when they run in it.
 */
export interface LatencyProfile extends ProcessFigures {
  /** Each stage's median, in ms. */
  stagesP50Ms: StageFigures;
  /** Each stage's 99th percentile, in ms. */
  stagesP99Ms: StageFigures;
  /** Each stage's mean over the slowest 1 % of runs (latency at or above its p99), in ms: where the tail went. */
  tailStagesMeanMs: StageFigures;
  /** {@link ProcessFigures.heapAllocatedMb} per timed run, in KB (1,024 bytes). */
  heapAllocatedKbPerRun: number;
  /** The server's latency monitor: the longest of each kind of event (`command`, `aof-write`, …), in ms. */
  redisLatencyMaxMs: Record<string, number>;
}

/** A run's milestones, in ms since the epoch. */
interface Milestones {
  called: number;
  fired: number;
  returned: number;
}

/** Runs whose logs are read at once when the phase is over. */
const LOG_READS_AT_ONCE = 100;

/** Now, in ms since the epoch, with sub-millisecond precision. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A profile being recorded: the phase tells it each run's milestones, then works the profile out. */
export interface LatencyRecorder {
  /** Run `runId` was fired at `called`, `fire` resolved at `fired`, `result` at `returned` (epoch ms). */
  record(runId: string, milestones: Milestones): void;
  /**
   * Stops watching (once) and works the profile out, reading each run's log
   * with `errand`; with `parts`, the milestones of a worker and a collector
   * that ran in another process (this process's are recorded otherwise).
   */
  profile(errand: Errand, parts?: PartMilestones): Promise<LatencyProfile>;
  /** Stops watching, if not yet: the watchers, the channels, the server's latency monitor. */
  stop(): Promise<void>;
}

/** The worker's milestones of a run, from its log: `run-started` and the terminal event. */
async function workerMilestones(
  errand: Errand,
  runId: string,
): Promise<{ started: number; finished: number }> {
  let started = Number.NaN;
  let finished = Number.NaN;
  for await (const event of errand.events(runId)) {
    if (event.type === "run-started") started = Date.parse(event.at);
    if (isTerminalEventType(event.type)) finished = Date.parse(event.at);
  }
  return { started, finished };
}

/** The longest of each event the server's latency monitor saw, in ms. */
async function redisLatencies(admin: BenchRedis["admin"]): Promise<Record<string, number>> {
  const latest = (await admin.call("LATENCY", "LATEST")) as [string, number, number, number][];
  return Object.fromEntries(latest.map(([event, , , maxMs]) => [event, maxMs]));
}

/** Each stage's figure over `runs` by `figure` (a percentile, a mean). */
function perStage(
  runs: readonly StageFigures[],
  figure: (values: number[]) => number,
): StageFigures {
  const entries = LATENCY_STAGES.map((stage) => [stage, figure(runs.map((run) => run[stage]))]);
  return Object.fromEntries(entries) as StageFigures;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Starts recording: the event-loop and GC watchers, the server's latency
 * monitor (reset), and errand's diagnostics channels (jobs taken, the
 * collectors' batch reads, the announcements the client's subscriber heard).
 */
export async function startLatencyProfile(redis: BenchRedis): Promise<LatencyRecorder> {
  const here = recordPartMilestones();
  // Heard by the client's own subscriber (not one of the bench's: that would add to what is measured).
  const announcedAt = new Map<string, number>();
  const onHeard = (message: unknown) => {
    const { runId, heardAt } = message as SettledHeard;
    if (!announcedAt.has(runId)) announcedAt.set(runId, heardAt);
  };
  await redis.admin.config("SET", "latency-monitor-threshold", "1");
  await redis.admin.call("LATENCY", "RESET");
  subscribe(SETTLED_HEARD_CHANNEL, onHeard);
  const watch = watchProcess();
  const runs = new Map<string, Milestones>();

  let stopped: Promise<Record<string, number>> | undefined;
  /** Stops every watcher once; resolves with the server's latency events. */
  function stop(): Promise<Record<string, number>> {
    stopped ??= (async () => {
      watch.stop();
      here.stop();
      unsubscribe(SETTLED_HEARD_CHANNEL, onHeard);
      const latest = await redisLatencies(redis.admin);
      await redis.admin.config("SET", "latency-monitor-threshold", "0");
      return latest;
    })();
    return stopped;
  }

  async function profile(
    errand: Errand,
    parts: PartMilestones = here.milestones,
  ): Promise<LatencyProfile> {
    const redisLatencyMaxMs = await stop();
    const { readAt, takenAt } = parts;
    const stages: (StageFigures & { total: number })[] = [];
    const runIds = [...runs.keys()];
    for (let start = 0; start < runIds.length; start += LOG_READS_AT_ONCE) {
      const chunk = runIds.slice(start, start + LOG_READS_AT_ONCE);
      const workers = await Promise.all(chunk.map((runId) => workerMilestones(errand, runId)));
      chunk.forEach((runId, position) => {
        const { called, fired, returned } = runs.get(runId)!;
        const { started, finished } = workers[position]!;
        const read = readAt.get(runId) ?? Number.NaN;
        const taken = takenAt.get(runId) ?? Number.NaN;
        const announced = announcedAt.get(runId) ?? Number.NaN;
        stages.push({
          fire: fired - called,
          pickup: started - called,
          take: taken - called,
          start: started - taken,
          step: finished - started,
          stream: read - finished,
          index: announced - read,
          wake: returned - announced,
          total: returned - called,
        });
      });
    }
    const totalP99 = percentile(
      stages.map(({ total }) => total),
      99,
    );
    const watched = watch.stop();
    return {
      ...watched,
      heapAllocatedKbPerRun: (watched.heapAllocatedMb * 1024) / runs.size,
      stagesP50Ms: perStage(stages, (values) => percentile(values, 50)),
      stagesP99Ms: perStage(stages, (values) => percentile(values, 99)),
      tailStagesMeanMs: perStage(
        stages.filter(({ total }) => total >= totalP99),
        mean,
      ),
      redisLatencyMaxMs,
    };
  }

  return {
    record: (runId, milestones) => runs.set(runId, milestones),
    profile,
    async stop() {
      await stop();
    },
  };
}
