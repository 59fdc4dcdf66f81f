/**
 * `createReaper`: settles the runs nobody else will settle, so that no parent
 * waits forever — runs whose BullMQ job failed for good (`worker_lost`, or
 * `internal` with the job's reason) and runs past their deadline
 * (`deadline_exceeded`) and runs of an agent version no worker has run for
 * `versionGraceMs` (`agent_version_unavailable`) — and enqueues the job of a run left queued without
 * one (see `jobless-runs.ts`). It only appends events and adds jobs; the
 * collector turns the events into results like any other ending. Several
 * reapers may run at once: an append to a settled run is refused and counts
 * as done, and a job added twice is one job. A write Redis refuses for lack
 * of memory fails the pass, and the next pass tries again.
 *
 * A pass runs every `intervalMs`, or sooner when a deadline falls due before.
 * The first pass of a reaper reads every failed job; later passes read the
 * jobs that failed since the previous pass began (less `clockSkewMs`, for
 * clocks of other machines that run behind).
 */

import { wholeNumberOption } from "@errand/core/ops";
import { createLogger } from "../logger.js";
import { CLOSE_ALLOWANCE_MS, closeWithin, runEach } from "../redis/closing.js";
import { closeConnection } from "../redis/connection.js";
import { type EngineOptions, openResources } from "../resources.js";
import type { ReaperContext } from "./context.js";
import { earliestDeadline, reapDeadlines } from "./deadlines.js";
import { enqueueJoblessRuns, type JoblessCursors } from "./jobless-runs.js";
import { createReaperQueues } from "./queues.js";
import {
  DEFAULT_VERSION_GRACE_MS,
  type RunVersions,
  reapUnavailableVersions,
} from "./unavailable-versions.js";
import { reapFailedJobs } from "./worker-lost.js";

/** Options of {@link createReaper}: the shared {@link EngineOptions}, and the reaper's own. */
export interface ReaperOptions extends EngineOptions {
  /** The BullMQ queues whose failed jobs are read. Default: every queue in the registry. */
  queues?: readonly string[];
  /** The longest pause between passes. Default 5,000 ms. */
  intervalMs?: number;
  /** Jobs or runs per read. Default 100. */
  batchSize?: number;
  /** How far behind another machine's clock may be when it stamps a job's failure. Default 60,000 ms. */
  clockSkewMs?: number;
  /** How long a run stays queued before its job is looked for, and enqueued when missing. Default 60,000 ms. */
  joblessAfterMs?: number;
  /**
   * How long the open runs of an agent version wait once no worker of that
   * version is live, in ms, before they settle `failed`
   * (`agent_version_unavailable`). Default `DEFAULT_VERSION_GRACE_MS` (15 minutes).
   */
  versionGraceMs?: number;
}

/** What one pass settled. */
export interface ReapReport {
  /** Runs settled because their job failed for good (`worker_lost` or `internal`). */
  failedJobs: number;
  /** Runs settled as `deadline_exceeded`. */
  deadlineExceeded: number;
  /** Runs left queued without a job whose job was enqueued. */
  joblessEnqueued: number;
  /** Runs settled as `agent_version_unavailable`. */
  versionUnavailable: number;
}

/** A running reaper. */
export interface Reaper {
  /** Starts passes in the background (the first at once). */
  start(): void;
  /** Runs one pass now (also while started). */
  reapOnce(): Promise<ReapReport>;
  /**
   * Stops the passes, waits for the one running, closes its connections;
   * with Redis unreachable, cuts them after `CLOSE_ALLOWANCE_MS` (see `closing.ts`).
   */
  stop(): Promise<void>;
}

/**
 * Creates a reaper; nothing runs until `start()` or `reapOnce()`. Throws
 * `redis_unavailable` when `connection` names no Redis.
 */
export function createReaper(options: ReaperOptions): Reaper {
  const intervalMs = wholeNumberOption("intervalMs", options.intervalMs, 5_000, 1);
  const batchSize = wholeNumberOption("batchSize", options.batchSize, 100, 1);
  const clockSkewMs = wholeNumberOption("clockSkewMs", options.clockSkewMs, 60_000, 0);
  const joblessAfterMs = wholeNumberOption("joblessAfterMs", options.joblessAfterMs, 60_000, 0);
  const versionGraceMs = wholeNumberOption(
    "versionGraceMs",
    options.versionGraceMs,
    DEFAULT_VERSION_GRACE_MS,
    0,
  );
  const logger = (options.logger ?? createLogger()).child({ component: "reaper" });
  const resources = openResources({ ...options, logger }, { name: "reaper commands" });
  const { redis, keys } = resources;
  const context: ReaperContext = {
    ...resources,
    queues: createReaperQueues(redis, keys, resources.logger, options.queues),
    batchSize,
  };
  const shardList = Array.from({ length: resources.store.shards }, (_, shard) => shard);
  /** Per queue, the failure time from which the next pass reads. */
  const failedSince = new Map<string, number>();
  const joblessCursors: JoblessCursors = new Map();
  const runVersions: RunVersions = new Map();
  let running: Promise<ReapReport> | undefined;
  let scheduled: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let started = false;

  async function pass(): Promise<ReapReport> {
    const passStart = context.now().getTime();
    let failedJobs = 0;
    for (const name of await context.queues.names()) {
      const report = await reapFailedJobs(context, name, failedSince.get(name));
      failedJobs += report.settled;
      // A job whose run could not be settled is read again: the window stays open.
      if (report.errors === 0) failedSince.set(name, passStart - clockSkewMs);
    }
    const perShard = await Promise.all(shardList.map((shard) => reapDeadlines(context, shard)));
    const jobless = await Promise.all(
      shardList.map((shard) => enqueueJoblessRuns(context, shard, joblessAfterMs, joblessCursors)),
    );
    const versionUnavailable = await reapUnavailableVersions(
      context,
      shardList,
      versionGraceMs,
      runVersions,
    );
    return {
      failedJobs,
      deadlineExceeded: perShard.reduce((sum, count) => sum + count, 0),
      joblessEnqueued: jobless.reduce((sum, count) => sum + count, 0),
      versionUnavailable,
    };
  }

  function reapOnce(): Promise<ReapReport> {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** One scheduled pass, then the timer for the next. */
  async function scheduledPass(): Promise<void> {
    let pauseMs = intervalMs;
    try {
      await reapOnce();
      const next = await earliestDeadline(context, shardList);
      if (next !== undefined)
        pauseMs = Math.max(0, Math.min(intervalMs, next - context.now().getTime()));
    } catch (error) {
      logger.warn({ err: error }, "reaper pass failed; retrying");
    }
    if (started) timer = setTimeout(runScheduledPass, pauseMs);
  }

  function runScheduledPass(): void {
    scheduled = scheduledPass();
  }

  return {
    start() {
      if (started) return;
      started = true;
      runScheduledPass();
    },
    reapOnce,
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      await closeWithin({
        close: () =>
          runEach([
            async () => {
              await scheduled;
              await running?.catch(() => undefined);
            },
            () => context.queues.close(),
            () => closeConnection(redis),
          ]),
        withinMs: CLOSE_ALLOWANCE_MS,
        cut: () => redis.disconnect(),
        logger,
      });
    },
  };
}
