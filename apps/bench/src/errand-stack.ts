/**
 * errand as a user runs it, in the bench's process: a client
 * (`createErrand`), a worker (`createWorker`) and a collector
 * (`createCollector`, with its reaper), each on its own connections to the
 * bench's Redis. Every phase starts the parts it needs and stops them after.
 */

import { ErrandError, type RunResult } from "@errand/core";
import {
  type Collector,
  createCollector,
  createErrand,
  createWorker,
  type Errand,
  type ErrandWorker,
  type FireSpec,
  type FlowControlOptions,
} from "@errand/engine";
import { createLogger, MAX_FIRE_MANY } from "@errand/engine/ops";
import type { Logger } from "@errand/runtime";
import { BENCH_ANSWER, benchAgent, benchSpec } from "./bench-agent.js";
import type { BenchRedis } from "./bench-redis.js";

/** Which parts of errand a phase runs. */
export interface StackOptions {
  /** The bench's Redis, and the durability errand's parts append with there. */
  redis: BenchTarget;
  /** Jobs the worker runs at once. */
  concurrency: number;
  /** Start a worker. Default true. */
  worker?: boolean;
  /** Start a collector. Default true. */
  collector?: boolean;
  /** The worker's flow control. Default none. */
  flowControl?: FlowControlOptions;
  /** The client's fair queueing of runs with a concurrency key. Default true. */
  fairQueueing?: boolean;
}

/**
 * Where errand's parts run: the bench's Redis URL (a cluster's as
 * `redis+cluster://…`), the durability of their appends and the budget runs
 * are fired with; with `shards` and `queueShards` when not errand's
 * defaults; with `workerMetrics: false` its workers keep no Prometheus metrics.
 */
export interface BenchTarget extends Pick<BenchRedis, "url" | "durability" | "budget"> {
  shards?: number;
  queueShards?: number;
  workerMetrics?: boolean;
}

/** The spread options of `redis`, to spread into an engine part's options. */
function spreadOf(redis: BenchTarget): { shards?: number } {
  return redis.shards === undefined ? {} : { shards: redis.shards };
}

/** The parts of errand a phase runs. */
export interface ErrandStack {
  errand: Errand;
  worker?: ErrandWorker;
  collector?: Collector;
  /** The fire spec of bench run `index`, with the target's budget when it has one. */
  spec(index: number): FireSpec;
  /** Stops the worker (without grace), the collector and the client. */
  stop(): Promise<void>;
}

/** The logger of every part the bench runs: nothing, so that `--json` prints its report alone. */
export const SILENT_LOGGER: Logger = createLogger({ level: "silent" });

/**
 * A worker running the bench agent on `redis`, logging nothing, its first
 * attempts optimistic, without a schedule ticker, with `flowControl` if given.
 */
export function startBenchWorker(
  redis: BenchTarget,
  concurrency: number,
  flowControl?: FlowControlOptions,
): Promise<ErrandWorker> {
  return createWorker({
    connection: redis.url,
    durability: redis.durability,
    ...spreadOf(redis),
    ...(redis.queueShards === undefined ? {} : { queueShards: redis.queueShards }),
    agents: [benchAgent()],
    concurrency,
    optimisticStart: true,
    logger: SILENT_LOGGER,
    // No schedule ticker: its own connections and polling would be counted as the runs'.
    schedules: false,
    ...(flowControl === undefined ? {} : { flowControl }),
    ...(redis.workerMetrics === false ? { prometheus: false } : {}),
  });
}

/** A started collector (with its reaper) on `redis`, logging nothing. */
export async function startBenchCollector(redis: BenchTarget): Promise<Collector> {
  const collector = createCollector({
    connection: redis.url,
    durability: redis.durability,
    ...spreadOf(redis),
    logger: SILENT_LOGGER,
  });
  await collector.start();
  return collector;
}

/** Starts the collector first (so no settlement waits for it), then the worker, then the client. */
export async function startErrandStack(options: StackOptions): Promise<ErrandStack> {
  const { redis } = options;
  const connection = redis.url;
  const collector = options.collector === false ? undefined : await startBenchCollector(redis);
  const worker =
    options.worker === false
      ? undefined
      : await startBenchWorker(redis, options.concurrency, options.flowControl);
  const errand = createErrand({
    connection,
    ...spreadOf(redis),
    logger: SILENT_LOGGER,
    ...(options.fairQueueing === undefined ? {} : { fairQueueing: options.fairQueueing }),
  });
  const { budget } = redis;
  return {
    errand,
    spec: (index) => ({ ...benchSpec(index), ...(budget === undefined ? {} : { budget }) }),
    ...(worker === undefined ? {} : { worker }),
    ...(collector === undefined ? {} : { collector }),
    async stop() {
      await worker?.close({ graceMs: 0 });
      await collector?.stop();
      await errand.close();
    },
  };
}

/**
 * Fires `count` bench runs with `fireMany`, a batch of at most
 * {@link MAX_FIRE_MANY} at a time, and resolves with their runIds in order.
 * Throws when any spec is refused: the bench measures runs that all go through.
 */
export async function fireBenchRuns(
  stack: Pick<ErrandStack, "errand" | "spec">,
  count: number,
  from = 0,
  concurrencyKeyOf?: (index: number) => string,
): Promise<string[]> {
  const runIds: string[] = [];
  for (let start = 0; start < count; start += MAX_FIRE_MANY) {
    const size = Math.min(MAX_FIRE_MANY, count - start);
    const specs = Array.from({ length: size }, (_, i) => {
      const spec = stack.spec(from + start + i);
      return concurrencyKeyOf === undefined
        ? spec
        : { ...spec, concurrencyKey: concurrencyKeyOf(from + start + i) };
    });
    const fired = await stack.errand.fireMany(specs);
    for (const item of fired.results) {
      if (!item.ok || item.runId === undefined) {
        throw new ErrandError("internal", `the bench could not fire a run: ${item.error?.message}`);
      }
      runIds.push(item.runId);
    }
  }
  return runIds;
}

/** The most runs one `collect` page holds. */
const COLLECT_PAGE = 500;

/**
 * Waits, page by page with `collect`, until every run of `runIds` has a
 * readable `RunResult`. Throws when one did not succeed with the bench's
 * answer, or when `timeoutMs` passes first.
 */
export async function waitForResults(
  errand: Errand,
  runIds: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let start = 0; start < runIds.length; start += COLLECT_PAGE) {
    let page = runIds.slice(start, start + COLLECT_PAGE);
    while (page.length > 0) {
      const waitMs = deadline - Date.now();
      if (waitMs <= 0) {
        throw new ErrandError("internal", `${page.length} bench runs did not settle in time`);
      }
      const collected = await errand.collect(page, { waitMs, limit: COLLECT_PAGE });
      for (const run of collected.results) {
        if (run.status !== "pending" && !isBenchAnswer(run.ok, run.output)) {
          throw new ErrandError(
            "internal",
            `bench run ${run.runId} ended ${run.status}: ${run.error?.message}`,
          );
        }
      }
      page = collected.results.filter((run) => run.status === "pending").map((run) => run.runId);
    }
  }
}

/** True for a run that succeeded with the bench's answer. */
function isBenchAnswer(ok: boolean, output: unknown): boolean {
  return ok && JSON.stringify(output) === JSON.stringify(BENCH_ANSWER);
}

/** The stored result of a settled bench run (throws when it has none). */
export async function settledResult(errand: Errand, runId: string): Promise<RunResult> {
  const result = await errand.result(runId);
  if (result === undefined) throw new ErrandError("internal", `bench run ${runId} has no result`);
  return result;
}
