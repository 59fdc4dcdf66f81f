/**
 * `createWorker`: a BullMQ worker that runs the jobs of errand's runs. It
 * registers its agents (so clients can fire them), keeps a heartbeat, listens
 * for cancels, lends the parent tools the engine (`ctx.services`), and
 * hands each job to its job handler (`job-handler.ts`); closing is
 * `close-sequence.ts`'s. This module only wires the parts together.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { ErrandError } from "@errand/core";
import { findLosslessJsonProblem } from "@errand/core/ops";
import type { Agent, RetryPolicy } from "@errand/runtime";
import { newestPendingRunIds, pendingRunIds } from "@errand/store/ops";
import type { JobsOptions } from "bullmq";
import { DEFAULT_PRICE_TABLE, type PriceTable } from "../budgets/price-table.js";
import { cancel } from "../client/cancel.js";
import { type EngineKeys, engineKeys } from "../engine-keys.js";
import type { FlowControlOptions } from "../flow-control/flow-options.js";
import { workerFlowControl } from "../flow-control/worker-flow-control.js";
import { createLogger } from "../logger.js";
import { createPrometheusMetrics, type PrometheusMetrics } from "../metrics/prometheus-metrics.js";
import { countRedisErrors } from "../metrics/redis-errors.js";
import { createRunMetrics } from "../metrics/run-metrics.js";
import { addWorkerSlotGauges } from "../metrics/worker-slots.js";
import { type ParentLimits, resolveParentLimits } from "../parents/limits.js";
import { openParentServices, PARENT_SERVICES } from "../parents/parent-services.js";
import { newestPendingChildren } from "../parents/pending-children.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { logBullErrors } from "../queues/bull-errors.js";
import {
  DEFAULT_QUEUE_SHARDS,
  type QueueShard,
  requireQueueShards,
} from "../queues/queue-shards.js";
import {
  createRunQueues,
  DEFAULT_CHILD_JOB_OPTIONS,
  DEFAULT_JOB_OPTIONS,
} from "../queues/run-queues.js";
import { collectRuns } from "../reads/collect.js";
import { createReadsContext } from "../reads/context.js";
import { runLinks } from "../reads/view-url.js";
import { openJobsConnection, openSettledWaiter } from "../redis/connection.js";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import { type EngineOptions, openResources } from "../resources.js";
import { startScheduleTicker } from "../schedules/schedule-ticker.js";
import { startAdoption } from "./adopt-orphans.js";
import { type ModelResolver, queueRecords, resolveAgentModels } from "./agent-models.js";
import { startCancelListener } from "./cancel-listener.js";
import { closeWorkerParts, type WorkerParts } from "./close-sequence.js";
import { RunFailedError } from "./failed-run-job.js";
import { DEFAULT_HEARTBEAT_MS, startHeartbeat } from "./heartbeat.js";
import { createJobHandler } from "./job-handler.js";
import { resolveJobLocks } from "./job-locks.js";
import { createParkedRuns, DEFAULT_PARK_RECHECK_MS } from "./park.js";
import { redisLiveChannel } from "./redis-live-channel.js";
import { retryingStore } from "./retrying-store.js";
import type { RunProcessorContext } from "./run-processor-context.js";
import { RunWorker } from "./run-worker.js";
import { takeShards } from "./shard-slots.js";

/** How long `close` lets active runs finish when not told: 30 s. */
const DEFAULT_CLOSE_GRACE_MS = 30_000;

/** Options of {@link createWorker}: the shared {@link EngineOptions}, and the worker's own. */
export interface WorkerOptions extends EngineOptions {
  /**
   * The agents this worker runs. They name its queue: workers that run the
   * same agents share one, so a run only ever reaches a worker that runs its agent.
   */
  agents: readonly Agent[];
  /**
   * How many runs it works on at once, split over the queue shards it takes
   * from: at least one per shard. Default 1, or one per shard taken when
   * that is more.
   */
  concurrency?: number;
  /**
   * How many shards its queue has (docs/architecture/redis-layout.md#queue-shards):
   * 1 … `MAX_QUEUE_SHARDS`, default `DEFAULT_QUEUE_SHARDS` (1). On a Redis
   * Cluster, as many as it has masters (or a multiple) spreads the queue over
   * them. Workers of the same agents with different counts have different
   * queues; producers follow the registry, so they need not be told.
   */
  queueShards?: number;
  /**
   * Which of its queue's shards it takes jobs from (0 … `queueShards` − 1):
   * one blocking connection each. Default all of them. Every shard must be
   * taken by some worker, or its runs wait.
   */
  takeQueueShards?: readonly number[];
  /**
   * How long a job's lock lasts without renewal, in ms (BullMQ
   * `lockDuration`); it is renewed every quarter of it. A killed worker's
   * runs run again on another worker ¾ of it to all of it plus
   * `stalledInterval` after its death. Default `DEFAULT_LOCK_DURATION_MS` (5,000).
   */
  lockDuration?: number;
  /**
   * How often jobs whose lock lapsed are looked for, in ms (BullMQ
   * `stalledInterval`). Default `DEFAULT_STALLED_INTERVAL_MS` (2,500). The
   * workers of a queue share one check: after any worker checks, none checks
   * again before that worker's interval.
   */
  stalledInterval?: number;
  /**
   * How many times a job may lose its lock before it fails for good and its
   * run is settled `worker_lost` (BullMQ `maxStalledCount`, counted over the
   * job's whole life). Default `DEFAULT_MAX_STALLED_COUNT` (10).
   */
  maxStalledCount?: number;
  /** Models for agents that name theirs. Default: `openaiModel` when `OPENAI_API_KEY`/`OPENAI_BASE_URL` is set. */
  models?: ModelResolver;
  /**
   * Default: `<host>-<pid>-<random>`. A non-empty string of Unicode text (no
   * lone surrogate): it goes into every `run-started` this worker writes.
   */
  workerId?: string;
  /**
   * How often its queue's records in the registry and its heartbeat are
   * refreshed, in ms. Default 10,000. A queue none of whose workers beat for
   * three of these counts as having no live worker.
   */
  heartbeatMs?: number;
  /**
   * Passed to tools as `ctx.services`, beside what the worker lends the
   * parent tools itself (under `errandParent`).
   */
  services?: Readonly<Record<string, unknown>>;
  /**
   * The limits of the parent tools (`spawn_agents`) of this worker's agents:
   * `maxDepth` (default 5) and `maxChildrenPerParent` (default 1,000). The
   * tools of an agent may set their own (`parentTools(limits)`).
   */
  parentLimits?: Partial<ParentLimits>;
  /**
   * BullMQ options of the jobs of the children its runs spawn, and of the jobs
   * it adopts from queues left without a live worker. Default: errand's job
   * options (3 attempts, failed jobs kept a week, completed ones
   * `DEFAULT_KEEP_COMPLETED_JOBS`), but a child's job is removed as it
   * completes (its result is in the store, for its parent to collect).
   */
  jobOptions?: JobsOptions;
  /** How failed model requests are retried. */
  retry?: Partial<RetryPolicy>;
  /**
   * The longest a parked run's job waits before it is tried again, in ms; it
   * comes back sooner when a run it waits for settles. Default 30,000.
   */
  parkRecheckMs?: number;
  /**
   * Start a run's first attempt optimistically (docs/architecture/worker.md#the-optimistic-first-attempt):
   * on a job's first delivery, its `run-started` goes to the log with the
   * first step, in one append, instead of alone before it: one round trip a
   * run less. The price: while its first step runs the run reads `queued`,
   * and an attempt that dies or is cancelled before its first append leaves
   * no `run-started` (a cancel then reads `queued`, and the run's history
   * and `attempts` lack that attempt). Default false.
   */
  optimisticStart?: boolean;
  /**
   * The URL the dashboard is served at: the children in the answers of
   * `spawn_agents` and `collect_agents` then carry `viewUrl`, the link to
   * their page there. Default none: no `viewUrl`.
   */
  dashboardUrl?: string;
  /**
   * Put message contents (prompts, answers, tool arguments and results, the
   * recorded output) on the runs' spans, redacted with the logs' list.
   * Default false: spans carry names, counts and ids only. Spans exist only
   * when the application installed an OpenTelemetry SDK.
   */
  traceContent?: boolean;
  /**
   * Log a tool call's arguments over the inline limits (a `spawn_agents` call
   * of many children) as a blob of the run and a preview. Default true.
   * false writes them whole, as workers before it did: the first step of the
   * rolling upgrade that brings it, so that no older worker resumes a step
   * whose arguments it cannot read back
   * (docs/architecture/tool-results.md#call-arguments-kept-as-blobs).
   */
  cutLargeCallArgs?: boolean;
  /**
   * Limits shared by the fleet (docs/architecture/flow-control.md#flow-control): runs
   * at once per agent and per `concurrencyKey`, and requests and tokens a
   * minute per provider key, whose 429s pause it for every worker. Give every
   * worker of a fleet the same. Default: no limits.
   */
  flowControl?: FlowControlOptions;
  /**
   * Where its Prometheus metrics go (runs settled, run and step durations,
   * tokens, tool calls, slots, Redis errors). Default: metrics of its own.
   * `false`: no metrics at all, so nothing is counted or observed as runs go
   * (for a worker nobody scrapes).
   */
  prometheus?: PrometheusMetrics | false;
  /**
   * Prices of models, in US dollars per million tokens, merged over
   * `DEFAULT_PRICE_TABLE` (common OpenAI models): each response is priced
   * (`model-responded.costUsd`) by the longest entry its model's name starts
   * with, and counted against `costUsd` budgets. A model the table does not
   * know is not priced.
   */
  prices?: PriceTable;
  /**
   * Whether it turns schedules' ticks into runs (docs/architecture/schedules.md#who-turns-a-tick-into-a-run):
   * a schedule ticks while any worker that does lives. Default true.
   */
  schedules?: boolean;
}

/** Options of {@link ErrandWorker.close}. */
export interface CloseWorkerOptions {
  /**
   * How long active runs may go on, in ms. Runs still going after it are left
   * to their lock: it lapses and another worker resumes them from their log.
   * Default 30,000.
   */
  graceMs?: number;
}

/** A running worker. */
export interface ErrandWorker {
  readonly workerId: string;
  readonly keys: EngineKeys;
  /** The queue it takes jobs from: the one of its set of agents (see `queueOfAgents`). */
  readonly queue: string;
  /** The shards of its queue it takes jobs from: one BullMQ worker (and blocking connection) each. */
  readonly queueShards: readonly QueueShard[];
  /** Its Prometheus metrics: serve `prometheus.text()` at `/metrics`; `undefined` with `prometheus: false`. */
  readonly prometheus: PrometheusMetrics | undefined;
  /**
   * Stops taking jobs, lets active runs finish (up to `graceMs`), then closes
   * everything, whether Redis answers or not: by the end of the grace period
   * (at least `CLOSE_ALLOWANCE_MS` after the runs), it cuts its connections
   * and logs `Redis unreachable; closed without waiting for it`. A worker
   * with no active run has nothing to drain: it closes at once (within
   * `IDLE_CLOSE_ALLOWANCE_MS`, 1 s, when Redis does not answer). It rejects
   * only for a failure that is not Redis being gone.
   */
  close(options?: CloseWorkerOptions): Promise<void>;
}

function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

/**
 * `workerId` when it can go into a `run-started` as it is (`invalid_spec`
 * otherwise): the worker's `run-started` is marked checked, not validated
 * when appended, so its id is checked here, where it enters.
 */
function requireWorkerId(workerId: string): string {
  const unreadable =
    typeof workerId === "string" ? findLosslessJsonProblem(workerId)?.problem : "is not a string";
  if (workerId !== "" && unreadable === undefined) return workerId;
  throw new ErrandError(
    "invalid_spec",
    `workerId ${unreadable ?? "is empty"}; give a non-empty string, or none for the default`,
    { details: { workerId: String(workerId) } },
  );
}

/**
 * Starts a worker and resolves once it is ready: its agents registered, its
 * cancel subscription active and its BullMQ worker connected (while Redis is
 * out of memory, it waits for room to register). Throws an
 * `ErrandError` (`invalid_spec`, `schema_not_supported`, `settings_not_supported`)
 * for agents it cannot run, and `invalid_spec` for an empty `workerId` (or one holding a lone
 * surrogate), a `dashboardUrl` that is not an absolute http(s) URL
 * or a job-lock setting that is not a whole number (a duration ≥ 1 ms, a count ≥ 0);
 * `redis_unavailable` when `connection` names no Redis.
 *
 * ```ts
 * const worker = await createWorker({ connection: process.env.REDIS_URL!, agents: [researcher], concurrency: 4 });
 * closeOnSignals(worker);
 * ```
 */
export async function createWorker(options: WorkerOptions): Promise<ErrandWorker> {
  const workerId = requireWorkerId(options.workerId ?? defaultWorkerId());
  const parentLimits = resolveParentLimits(options.parentLimits);
  const agents = resolveAgentModels(options.agents, options.models);
  const queue = queueOfAgents(
    engineKeys(options.prefix).prefix,
    [...agents.keys()],
    requireQueueShards(options.queueShards ?? DEFAULT_QUEUE_SHARDS),
  );
  const taken = takeShards(engineKeys(options.prefix), queue, options);
  const concurrency = taken.reduce((sum, { slots }) => sum + slots, 0);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const links = runLinks(options.dashboardUrl);
  const prometheus =
    options.prometheus === false ? undefined : (options.prometheus ?? createPrometheusMetrics());
  const jobLocks = resolveJobLocks(options);

  // The jobs running at once append, read and beat on this connection: what they issue in one tick leaves in one write.
  const resources = openResources(
    { ...options, logger: (options.logger ?? createLogger()).child({ workerId }) },
    { name: "worker commands", coalesceWrites: true },
  );
  const { redis, keys, store, now, logger } = resources;
  const reads = createReadsContext({
    ...resources,
    waiter: openSettledWaiter(options.connection, keys, {
      logger,
      name: "worker settled subscriber",
    }),
    shards: store.shards,
  });
  const parent = openParentServices({
    connection: options.connection,
    reads,
    limits: parentLimits,
    links,
    jobOptions: options.jobOptions ?? DEFAULT_CHILD_JOB_OPTIONS,
  });
  // A worker started while Redis is out of memory waits for room to register (docs/architecture/redis-errors.md#redis-out-of-memory).
  const heartbeat = await retryWhileRedisIsTransient(
    () =>
      startHeartbeat({
        redis,
        keys,
        workerId,
        records: queueRecords(agents, queue, heartbeatMs, now()),
        concurrency,
        queueShards: taken.map(({ shard }) => shard.shard),
        intervalMs: heartbeatMs,
        onError: (error) => logger.warn({ error: String(error) }, "heartbeat failed"),
      }),
    { logger, write: "registration of the worker" },
  );
  const cancels = await startCancelListener(options.connection, keys, logger);
  const flow = workerFlowControl(redis, keys.prefix, logger, agents, options.flowControl);
  const context: RunProcessorContext = {
    ...resources,
    // Runs wait out a Redis out of memory rather than fail their jobs (docs/architecture/redis-errors.md#redis-out-of-memory):
    // every write of a run, and the innermost part of each attempt's sink (`attempt-sink.ts`).
    store: retryingStore(store, logger),
    agents: flow.agents,
    admission: flow.admission,
    workerId,
    queue,
    cancels,
    services: { ...options.services, [PARENT_SERVICES]: parent.services },
    pendingOf: (runIds: readonly string[]) => pendingRunIds(reads, runIds),
    collectRuns: (runIds, collectOptions) => collectRuns(reads, runIds, collectOptions),
    newestPendingOf: (runIds: readonly string[]) => newestPendingRunIds(reads, runIds),
    newestPendingChildrenOf: async (parentRunId: string) =>
      (await newestPendingChildren(reads, parentRunId)).pending,
    ...(prometheus === undefined ? {} : { runMetrics: createRunMetrics(prometheus) }),
    live: redisLiveChannel(store, logger),
    budgets: {
      redis,
      keys,
      ttlMs: store.retentionSeconds * 1_000,
      prices: { ...DEFAULT_PRICE_TABLE, ...options.prices },
      cancelTree: (runId, reason) =>
        cancel(parent.fireContext, runId, { cascade: true, reason, by: "budget" }),
      logger,
    },
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.traceContent === undefined ? {} : { traceContent: options.traceContent }),
    ...(options.cutLargeCallArgs === undefined
      ? {}
      : { cutLargeCallArgs: options.cutLargeCallArgs }),
  };

  const jobs = createJobHandler({
    context,
    parked: createParkedRuns({
      reads,
      logger,
      recheckMs: options.parkRecheckMs ?? DEFAULT_PARK_RECHECK_MS,
    }),
    logger,
    versionOf: (agent) => agents.get(agent)?.version,
    optimisticStart: options.optimisticStart ?? false,
  });

  // Shared by the shards' BullMQ workers for their commands (writes coalesced); each blocks on a connection of its own.
  const bullConnection = openJobsConnection(options.connection, { logger, name: "worker jobs" });
  const workers = taken.map(({ shard, slots }) => {
    const worker: RunWorker = new RunWorker(
      shard.name,
      (job, token) => jobs.handle(worker, job, token),
      {
        connection: bullConnection,
        prefix: shard.prefix,
        concurrency: slots,
        name: workerId,
        ...jobLocks,
      },
      redis,
      logger,
    );
    logBullErrors(worker, logger, `worker of ${shard.name}`);
    worker.on("failed", (job, error) => {
      if (error instanceof RunFailedError) {
        logger.info({ runId: job?.id, code: error.runError.code }, "run failed: its job is failed");
      } else {
        logger.error({ runId: job?.id, error: error.message }, "job failed");
      }
    });
    return worker;
  });
  if (prometheus !== undefined) {
    countRedisErrors(prometheus, redis, bullConnection);
    addWorkerSlotGauges(prometheus, concurrency, jobs.active);
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const ticker =
    options.schedules === false
      ? undefined
      : startScheduleTicker({ fire: parent.fireContext, bullConnection });
  const adoptionQueues = createRunQueues(bullConnection, keys, logger);
  const adoption = startAdoption(
    {
      ...resources,
      queue,
      queues: adoptionQueues,
      agents: new Set(agents.keys()),
      jobOptions: options.jobOptions ?? DEFAULT_JOB_OPTIONS,
    },
    heartbeatMs,
  );
  logger.info(
    {
      queue,
      shards: taken.map(({ shard }) => shard.shard),
      agents: [...agents.keys()],
      concurrency,
    },
    "worker ready",
  );

  const parts: WorkerParts = {
    workers,
    ticker,
    activeJobs: jobs.active,
    adoption,
    adoptionQueues,
    heartbeat,
    cancels,
    waiter: reads.waiter,
    parent,
    redis,
    bullConnection,
    logger,
  };
  let closing: Promise<void> | undefined;
  return {
    workerId,
    keys,
    queue,
    queueShards: taken.map(({ shard }) => shard),
    prometheus,
    close(closeOptions = {}) {
      closing ??= closeWorkerParts(parts, closeOptions.graceMs ?? DEFAULT_CLOSE_GRACE_MS);
      return closing;
    },
  };
}
