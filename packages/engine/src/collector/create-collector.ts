/**
 * `createCollector`: turns the shard streams into results. One loop per
 * shard reads through the collectors' consumer group in batches and folds
 * each run's events as they arrive (from its log when they did not all come
 * to this collector); for each settled run it keeps the run indexes,
 * writes the `RunResult` (last, so a result read means the rest is done)
 * and wakes waiters, then acknowledges, a few batches in one XACK (docs/architecture/collector.md). Any number of collectors share the work; a dead one's
 * pending entries are claimed by the others after `claimIdleMs`; an entry
 * that keeps failing goes to the shard's dead letters after `maxDeliveries`
 * deliveries; each stream is trimmed behind what the group acknowledged. By
 * default a collector also runs a reaper (see `createReaper`).
 *
 * ```ts
 * const collector = createCollector({ connection: process.env.REDIS_URL! });
 * await collector.start();
 * console.log(await collector.metrics()); // { shards: [{ shard, lag, pending, deadLettered }], … }
 * await collector.stop();
 * ```
 */

import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { ErrandError } from "@errand/core";
import { wholeNumberOption } from "@errand/core/ops";
import { DEFAULT_SHARDS, defineIndexRunsScript } from "@errand/store/ops";
import { engineKeys } from "../engine-keys.js";
import { createLogger } from "../logger.js";
import { addCollectorGauges } from "../metrics/collector-gauges.js";
import { createPrometheusMetrics, type PrometheusMetrics } from "../metrics/prometheus-metrics.js";
import { addQueueDepthGauge } from "../metrics/queue-depth.js";
import { countRedisErrors } from "../metrics/redis-errors.js";
import { createReaper, type Reaper, type ReaperOptions } from "../reaper/create-reaper.js";
import { CLOSE_ALLOWANCE_MS, closeWithin, runEach } from "../redis/closing.js";
import {
  closeConnection,
  openConnection,
  type RedisConnection,
  requireConnection,
} from "../redis/connection.js";
import { type EngineOptions, openResources } from "../resources.js";
import { DEFAULT_COLLECTOR_GROUP, ensureGroupWhenRoom } from "./consumer-group.js";
import type { CollectorContext } from "./context.js";
import { type CollectorMetrics, readCollectorMetrics } from "./metrics.js";
import { DEFAULT_PROJECTION_BYTES, RunProjections } from "./run-projections.js";
import { defineCollectorScripts } from "./scripts.js";
import { runShardLoop, type ShardLoopTiming } from "./shard-loop.js";

/** What the collector's own reaper takes (its connection, prefix, shards, retention, clock and logger are the collector's). */
export type CollectorReaperOptions = Omit<ReaperOptions, keyof EngineOptions>;

/**
 * Options of {@link createCollector}: the shared {@link EngineOptions} (its
 * `retentionSeconds` is that of the runs its reaper settles: a result the
 * collector stores follows its run's log, whoever settled it), and the
 * collector's own.
 */
export interface CollectorOptions extends EngineOptions {
  /** This collector's consumer name. Default `<host>-<pid>-<random>`. */
  consumer?: string;
  /** The consumer group. Default `collectors`. */
  group?: string;
  /** Entries per read. Default 100. */
  batchSize?: number;
  /** The longest one blocking read waits. Default 5,000 ms. */
  blockMs?: number;
  /** Deliveries after which a failing entry is dead-lettered. Default 5. */
  maxDeliveries?: number;
  /** How long an entry stays pending untouched before another collector claims it. Default 30,000 ms. */
  claimIdleMs?: number;
  /** How often each stream is trimmed behind the group. Default 10,000 ms. */
  trimIntervalMs?: number;
  /**
   * The longest an applied entry waits for its acknowledgement, which covers
   * the entries of several batches in one XACK (0: each batch is
   * acknowledged once applied). Default 100 ms, and never more than a tenth
   * of `claimIdleMs`, so that no collector claims an entry applied and not
   * yet acknowledged. Waiters see a result before its entries are
   * acknowledged: only the `pending` metric counts them meanwhile.
   */
  ackIntervalMs?: number;
  /**
   * How much the collector keeps folded in memory for the open runs it
   * follows, as the size of their entries (field names and values; the live
   * heap they take was about 1.7 times that in the fan-out bench, and a
   * process's peak RSS, with the garbage collector's headroom, several times
   * more). Default 32 MiB. Beyond it the runs least
   * recently folded are forgotten, and folded from their logs when they
   * settle: slower, same result.
   */
  projectionBytes?: number;
  /** Run a reaper beside the collector: `true` (default), `false`, or its options. */
  reaper?: boolean | CollectorReaperOptions;
  /**
   * Where its Prometheus metrics go (queue depth, collector lag, pending
   * entries, dead letters, Redis errors). Default: metrics of its own.
   */
  prometheus?: PrometheusMetrics;
}

/** A collector. */
export interface Collector {
  /** Its consumer name in the group. */
  readonly consumer: string;
  /** Creates the consumer groups and starts the loops (and the reaper); resolves once they run. */
  start(): Promise<void>;
  /**
   * Stops the loops after the batch each is applying, acknowledges what they
   * applied, and closes the connections. Entries read but not applied stay pending for the others.
   * With Redis unreachable, it cuts its connections after
   * `CLOSE_ALLOWANCE_MS` and logs `Redis unreachable; closed without waiting for it`.
   */
  stop(): Promise<void>;
  /** Lag, pending entries and dead letters of every shard. */
  metrics(): Promise<CollectorMetrics>;
  /** Its Prometheus metrics: serve `prometheus.text()` at `/metrics`. */
  readonly prometheus: PrometheusMetrics;
}

function defaultConsumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

/**
 * Creates a collector; nothing runs until `start()`. Throws
 * `redis_unavailable` at once when no Redis is given.
 */
export function createCollector(options: CollectorOptions): Collector {
  requireConnection(options.connection);
  const shards = wholeNumberOption("shards", options.shards, DEFAULT_SHARDS, 1);
  const claimIdleMs = wholeNumberOption("claimIdleMs", options.claimIdleMs, 30_000, 1);
  const ackIntervalMs = wholeNumberOption("ackIntervalMs", options.ackIntervalMs, 100, 0);
  const timing: ShardLoopTiming = {
    batchSize: wholeNumberOption("batchSize", options.batchSize, 100, 1),
    blockMs: wholeNumberOption("blockMs", options.blockMs, 5_000, 1),
    claimIdleMs,
    trimIntervalMs: wholeNumberOption("trimIntervalMs", options.trimIntervalMs, 10_000, 1),
    ackIntervalMs: Math.min(ackIntervalMs, Math.floor(claimIdleMs / 10)),
  };
  const maxDeliveries = wholeNumberOption("maxDeliveries", options.maxDeliveries, 5, 1);
  const projectionBytes = wholeNumberOption(
    "projectionBytes",
    options.projectionBytes,
    DEFAULT_PROJECTION_BYTES,
    0,
  );
  const consumer = options.consumer ?? defaultConsumerName();
  const keys = engineKeys(options.prefix);
  const logger = (options.logger ?? createLogger()).child({ component: "collector", consumer });
  const shardList = Array.from({ length: shards }, (_, shard) => shard);

  let context: CollectorContext | undefined;
  let blocking: RedisConnection[] = [];
  let loops: Promise<void>[] = [];
  let reaper: Reaper | undefined;
  let stopping = false;
  let stopped = new AbortController();
  const prometheus = options.prometheus ?? createPrometheusMetrics();

  /** The collector's context on a new command connection: its batches apply their runs concurrently, so what they issue in one tick leaves in one write. */
  function openContext(): CollectorContext {
    const resources = openResources(
      { ...options, logger },
      { name: "collector commands", coalesceWrites: true },
    );
    stopped = new AbortController();
    // Every shard loop, and every run of a batch retried alone, may wait on it at once.
    setMaxListeners(0, stopped.signal);
    return {
      ...resources,
      scripts: defineCollectorScripts(resources.redis),
      indexRunsScript: defineIndexRunsScript(resources.redis),
      group: options.group ?? DEFAULT_COLLECTOR_GROUP,
      consumer,
      maxDeliveries,
      projections: new RunProjections(projectionBytes),
      stopping: stopped.signal,
    };
  }

  const readMetrics = async (): Promise<CollectorMetrics> => {
    const connection =
      context?.redis ?? openConnection(options.connection, { logger, name: "collector metrics" });
    try {
      return await readCollectorMetrics(connection, keys, {
        shards,
        ...(options.group === undefined ? {} : { group: options.group }),
      });
    } finally {
      if (connection !== context?.redis) await closeConnection(connection);
    }
  };
  addCollectorGauges(prometheus, readMetrics);
  addQueueDepthGauge(
    prometheus,
    () => {
      if (context === undefined) throw new ErrandError("internal", "the collector is not started");
      return context.redis;
    },
    keys,
  );

  return {
    consumer,
    prometheus,
    async start() {
      if (context) return;
      stopping = false;
      const opened = openContext();
      context = opened;
      await Promise.all(
        shardList.map((shard) => ensureGroupWhenRoom(opened, keys.shardEvents(shard))),
      );
      blocking = shardList.map((shard) =>
        openConnection(options.connection, { logger, name: `collector shard ${shard}` }),
      );
      countRedisErrors(prometheus, opened.redis, ...blocking);
      loops = shardList.map((shard) =>
        runShardLoop(opened, shard, blocking[shard]!, timing, () => stopping),
      );
      if (options.reaper !== false) {
        const reaperOptions = options.reaper === true ? {} : (options.reaper ?? {});
        reaper = createReaper({
          ...reaperOptions,
          connection: options.connection,
          prefix: keys.prefix,
          shards,
          ...(options.retentionSeconds === undefined
            ? {}
            : { retentionSeconds: options.retentionSeconds }),
          ...(options.now === undefined ? {} : { now: options.now }),
          ...(options.logger === undefined ? {} : { logger: options.logger }),
        });
        reaper.start();
      }
      logger.info({ shards }, "collector started");
    },
    async stop() {
      if (!context) return;
      stopping = true;
      stopped.abort();
      for (const connection of blocking) connection.disconnect();
      const { redis } = context;
      const running = { loops, reaper };
      await closeWithin({
        close: () =>
          runEach([
            () => Promise.all(running.loops),
            async () => running.reaper?.stop(),
            () => closeConnection(redis),
          ]),
        withinMs: CLOSE_ALLOWANCE_MS,
        cut: () => redis.disconnect(),
        logger,
      });
      context = undefined;
      blocking = [];
      loops = [];
      reaper = undefined;
      logger.info({}, "collector stopped");
    },
    metrics: readMetrics,
  };
}
