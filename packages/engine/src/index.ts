/**
 * `@errand/engine` — errand on BullMQ and Redis: the client that fires runs,
 * the worker that runs them, and (beside them) the collector and reaper.
 *
 * ## Run a worker
 *
 * A worker runs agents (from `@errand/runtime`) and takes their runs from
 * the queue named after its set of agents: workers that run
 * the same agents share a queue, workers with different agents never do, so
 * a run only ever reaches a worker that runs its agent. It registers its
 * queue and agents in Redis so clients can fire them — a registration
 * outlives the worker, so runs fired while workers restart wait for them —
 * and keeps a heartbeat while it lives.
 *
 * ```ts
 * import { closeOnSignals, createWorker } from "@errand/engine";
 *
 * const worker = await createWorker({ connection: process.env.REDIS_URL!, agents: [researcher], concurrency: 4 });
 * closeOnSignals(worker); // SIGTERM: stop taking jobs, let active runs finish, exit
 * ```
 *
 * Each job names a run (`{ runId }`); the run's log decides what happens
 * (docs/architecture/worker.md): a settled run is left alone, a cancelled one is settled
 * `cancelled`, anything else gets a new attempt (`run-started`, fenced on the
 * log's seq) that continues from where the log ends — a model response or
 * tool result already logged is never redone. When an append is refused
 * because the log moved on, the worker reads it again: another attempt owns
 * the run (it stops writing), or a cancel arrived (it writes `cancelled`).
 * A worker that dies mid-run leaves its job locks to lapse (`lockDuration`,
 * 5 s, renewed every quarter of it); a stalled-job check (`stalledInterval`,
 * every 2.5 s) hands the job to another worker, which resumes the run from
 * its log: 3.75 to 7.5 s after the death with the defaults.
 *
 * ## Fire runs and watch them
 *
 * ```ts
 * import { createErrand } from "@errand/engine";
 *
 * const errand = createErrand({ connection: process.env.REDIS_URL! });
 * const { runId } = await errand.fire({
 *   agent: "researcher",
 *   input: { question: "What is errand?" },
 *   outputSchema: z.object({ answer: z.string() }),
 * });
 * for await (const event of errand.events(runId, { follow: true })) console.log(event.type);
 * const result = await errand.result(runId, { waitMs: 30_000 }); // once a collector stored it
 * ```
 *
 * `fire` refuses a run before anything is written — `invalid_spec`,
 * `unknown_agent`, `unsupported_schema`, `schema_not_supported` (a schema for
 * a model without tools, or with a keyword its provider refuses),
 * `settings_not_supported` (per-run `modelSettings` the model refuses), `input_too_large` (over 256 KiB by default),
 * `invalid_input` (an input the agent's `inputSchema` refuses, with
 * `details.issues`), `not_found` (a missing parent). `fireMany` fires a batch: every spec is
 * checked on its own, the valid ones are written in one pipeline and
 * enqueued in one `addBulk`, and the answer is `{ total, succeeded, failed,
 * results }` in spec order.
 *
 * `fire({ …, idempotencyKey })` fires at most one run per key while the key
 * is kept (`idempotencyTtlMs`, default 24 h): firing again answers with the
 * run fired before and `deduplicated: true` (per spec in `fireMany`).
 * `fire({ …, priority })` gives the run's job a BullMQ priority: 1 runs
 * first, `MAX_RUN_PRIORITY` last, and a run without one before all of them;
 * a child without one takes its parent's.
 *
 * ## Cancel
 *
 * `cancel(runId, { reason, cascade })` appends `cancel-requested` and
 * publishes the runId to every worker: the one holding the run aborts its
 * in-flight model request and writes `cancelled`. A run still waiting in its
 * queue is removed and settled `cancelled` at once; with `cascade` every
 * descendant is cancelled too. Cancelling a settled run changes nothing and
 * is not an error (`requested: false`).
 *
 * ## Parent agents
 *
 * An agent given `parentTools()` fires children and collects them:
 *
 * ```ts
 * import { createWorker, parentTools } from "@errand/engine";
 *
 * const lead = defineAgent({ name: "lead", instructions: "…", model, tools: parentTools() });
 * await createWorker({ connection, agents: [lead, researcher], parentLimits: { maxDepth: 3 } });
 * ```
 *
 * - `spawn_agents({ agents: [{ agent, input, outputSchema?, metadata?, deadlineMs?, priority? }, …] })`
 *   fires one child per item (`parentRunId` = the caller, `rootRunId`,
 *   `depth` + 1) and answers at once `{ total, succeeded, failed, results:
 *   [{ ok, runId?, agent, error?, retryable?, viewUrl? }], nextAction }`; a bad item
 *   fails alone. Past `maxDepth` (default 5) or `maxChildrenPerParent`
 *   (default 1,000) an item is refused with `limit_exceeded`. The runIds of
 *   a call are claimed before anything is fired, so a parent that crashed
 *   mid-call and runs it again fires the same children, never twice.
 * - `collect_agents({ runIds?, wait?, limit?, cursor? })` answers like
 *   `collect` — by default over every child, in creation order: a page of
 *   results, with the counts of every child asked about. With `wait: true`
 *   and children still pending, the parent parks.
 *
 * The tools reach the engine through `ctx.services`, which every worker
 * lends them; run anywhere else they fail the run with a clear error.
 *
 * ## Parking
 *
 * A tool that waits for other runs throws a `ParkRequest` (from
 * `@errand/runtime`): the step so far is logged, the run's job leaves the
 * worker (its slot is free for other runs) and comes back once every awaited
 * run has a stored result — what `collect` reads, so nothing is pending when
 * it resumes — or after `parkRecheckMs` (30 s) when the worker that parked it
 * died. It resumes from its log, in the same attempt: parking is not a retry.
 *
 * ## Waitpoints
 *
 * A run can wait for an answer from a person or another system: give its
 * agent `askTool()` (from `@errand/runtime`), or call `waitForAnswer(ctx, …)`
 * in a tool of your own and hand `ctx.waitpoint.token` to whoever answers.
 * The run parks (its slot is free) until `errand.waitpoints.complete(token,
 * answer)` — checked against the waitpoint's answer schema — or its timeout;
 * it then resumes on any worker and the call answers, once.
 * `errand.waitpoints.list()` lists what waits.
 *
 * ## Collect results
 *
 * A collector folds the shard streams into results: for each settled run it
 * keeps the run indexes `list` reads, writes the `RunResult` (core's fold
 * of the run's log) — last, so
 * whoever reads a result finds the rest done — and wakes whoever waits, then
 * acknowledges. Run as many as you like: they share
 * the shards through one consumer group, claim a dead one's entries, and
 * dead-letter an entry that keeps failing. Its reaper settles runs whose job
 * failed for good (`worker_lost`) or whose deadline passed (`deadline_exceeded`).
 *
 * ```ts
 * import { createCollector, createRunReads } from "@errand/engine";
 *
 * const collector = createCollector({ connection: process.env.REDIS_URL! });
 * await collector.start();
 * const result = await errand.result(runId, { waitMs: 30_000 }); // undefined if still running
 * const batch = await errand.collect(childIds, { waitMs: 10_000 }); // { total, succeeded, …, count, results, nextAction? }
 * const page = await errand.list({ status: "failed", limit: 20 }); // newest first, { items, hasMore, nextCursor? }
 * ```
 *
 * `collect`'s counts (`total`, `succeeded`, `failed`, `cancelled`, `pending`)
 * are of every runId given, on every page; its `results` are the page's
 * `count` runs. One round trip a page: a Lua call per shard reads where every
 * run stands, and the result of each run on the page.
 *
 * The same reads without a client that fires: `createRunReads({ connection })`.
 *
 * ## Links to the dashboard
 *
 * Given `dashboardUrl` (`createErrand`, `createRunReads`, and `createWorker`
 * for the parent tools), every run an answer returns carries `viewUrl`, the
 * link to its page there (`runViewUrl`); without it, no answer has the field.
 * The link is added as the answer is made, never stored.
 *
 * ## What is not here
 *
 * The root exports what these docs teach: the functions above, the types of
 * their options and answers, and the defaults the docs name. What only
 * errand's own apps need (registries as `errand doctor` and the dashboard
 * read them, gauges, diagnostics channels, the Redis ACL `errand doctor
 * --acl` prints) is `@errand/engine/ops`, without a semver promise.
 *
 * @packageDocumentation
 */

export type { Logger } from "@errand/runtime";
export type { Durability, LogEntries, RunKeyExpiry } from "@errand/store";
export {
  ACCESS_SCOPES,
  type AccessGrant,
  type AccessScope,
  LOOPBACK_GRANT,
} from "./access/access-grant.js";
export {
  type AccessKeys,
  type AccessKeysOptions,
  type Admission,
  type CreateAccessKeyOptions,
  createAccessKeys,
  DEFAULT_REQUESTS_PER_MINUTE,
  DEFAULT_VERIFY_CACHE_MS,
  MAX_VERIFY_CACHE_MS,
} from "./access/access-keys.js";
export {
  type GrantedErrand,
  type GrantedErrandOptions,
  grantedErrand,
} from "./access/granted-errand.js";
export type { AccessKeySummary } from "./access/key-record.js";
export { ACCESS_KEY_PREFIX } from "./access/key-secret.js";
export type { PriceTable } from "./budgets/price-table.js";
export type { CancelOptions, CancelResult } from "./client/cancel.js";
export {
  createErrand,
  type Errand,
  type ErrandOptions,
  type Evaluations,
  type Waitpoints,
} from "./client/client.js";
export type { FireManyItem, FireManyResult } from "./client/fire-many.js";
export {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_METADATA_LIMITS,
  type FireResult,
  FireSpec,
  MAX_DEADLINE_MS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_IDEMPOTENCY_TTL_MS,
  MAX_INPUT_NESTING,
  type MetadataLimits,
} from "./client/fire-spec.js";
export type { FireWarning } from "./client/fire-warnings.js";
export {
  MAX_RERUN,
  RERUN_OF_KEY,
  type RerunItem,
  type RerunOptions,
  type RerunOverrides,
  type RerunResult,
  type RerunVersion,
} from "./client/rerun.js";
export type { RunEventsOptions } from "./client/run-events.js";
export type { RunStreamOptions } from "./client/run-stream.js";
export {
  type Collector,
  type CollectorOptions,
  type CollectorReaperOptions,
  createCollector,
} from "./collector/create-collector.js";
export { type EngineKeys, engineKeys } from "./engine-keys.js";
export {
  DEFAULT_EVALUATION_CONCURRENCY,
  type EvaluateOptions,
  type EvaluationProgress,
} from "./evaluations/evaluate.js";
export type {
  CaseScore,
  CaseSide,
  CaseToolCall,
  Evaluation,
  EvaluationCase,
  EvaluationSet,
  EvaluationSpec,
  EvaluationTotals,
  FieldChange,
  RunFilter,
  UnrecordedCall,
  UnrecordedCallPolicy,
} from "./evaluations/evaluation-record.js";
export type { EvaluationSets, SaveSetOptions } from "./evaluations/evaluation-sets.js";
export type { EvaluationSummary } from "./evaluations/evaluation-store.js";
export { EVALUATION_OF_KEY, type FleetCandidate } from "./evaluations/fleet-candidate.js";
export { evaluationJUnit, type JUnitOptions } from "./evaluations/junit.js";
export {
  type EvaluationCaseInput,
  jsonFieldDiff,
  outputEqual,
  outputSchemaValid,
  type ScoreResult,
  type Scorer,
  textSimilarity,
} from "./evaluations/scorers.js";
export {
  DEFAULT_FLOW_RECHECK_MS,
  DEFAULT_LEASE_MS,
  type FlowControlOptions,
} from "./flow-control/flow-options.js";
export { RUN_DATA_KEYS } from "./logger.js";
export { createPrometheusMetrics, type PrometheusMetrics } from "./metrics/prometheus-metrics.js";
export type { ParentLimits } from "./parents/limits.js";
export { parentTools } from "./parents/parent-tools.js";
export type { ParentToolsOptions } from "./parents/spawn-agents.js";
export { type QueueShard, shardsOfQueue } from "./queues/queue-shards.js";
export { QueueRegistration, readQueueRegistrations } from "./queues/registry.js";
export { DEFAULT_KEEP_COMPLETED_JOBS, DEFAULT_KEEP_FAILED_JOBS } from "./queues/run-queues.js";
export type { CollectOptions, CollectResult } from "./reads/collect.js";
export type { CollectedRun } from "./reads/collected-run.js";
export { createRunReads, type RunReads, type RunReadsOptions } from "./reads/create-run-reads.js";
export type { ListOptions, RunSummary } from "./reads/list.js";
export type { ResultOptions } from "./reads/result.js";
export { type LinkedRunResult, runViewUrl } from "./reads/view-url.js";
export {
  createReaper,
  type Reaper,
  type ReaperOptions,
  type ReapReport,
} from "./reaper/create-reaper.js";
export { DEFAULT_VERSION_GRACE_MS } from "./reaper/unavailable-versions.js";
export { CLIENT_PATIENCE_MS } from "./redis/client-patience.js";
export { CLOSE_ALLOWANCE_MS, IDLE_CLOSE_ALLOWANCE_MS } from "./redis/closing.js";
export {
  type ConnectionInput,
  type ConnectionOptions,
  openConnection,
  type RedisConnection,
} from "./redis/connection.js";
export type { Schedules, ScheduleView } from "./schedules/client-schedules.js";
export { SCHEDULE_METADATA_KEY, TICK_METADATA_KEY } from "./schedules/fire-tick.js";
export {
  LATE_TICK_MS,
  MAX_CATCH_UP_TICKS,
  MIN_SCHEDULE_INTERVAL_MS,
  ScheduleSpec,
} from "./schedules/schedule-spec.js";
export type { CompletedWaitpoint, CompleteOptions } from "./waitpoints/complete.js";
export type { WaitingOptions, WaitingWaitpoint, WaitingWaitpoints } from "./waitpoints/waiting.js";
export type { ModelResolver } from "./worker/agent-models.js";
export { type CloseOnSignalsOptions, closeOnSignals } from "./worker/close-on-signals.js";
export {
  type CloseWorkerOptions,
  createWorker,
  type ErrandWorker,
  type WorkerOptions,
} from "./worker/create-worker.js";
export {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_MAX_STALLED_COUNT,
  DEFAULT_STALLED_INTERVAL_MS,
} from "./worker/job-locks.js";
export { OTHER_VERSION_RECHECK_MS } from "./worker/other-versions.js";
