/**
 * `createErrand`: the client a parent fires runs with and reads their
 * outcomes through. It composes the preflight, the store, the run queues and
 * the reads around connections of its own, derived from the one connection
 * it is given.
 */
import type { LiveEntry, Page, RunEvent, RunSoFar } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { JobsOptions, Queue } from "bullmq";
import { withTreeSpend } from "../budgets/tree-view.js";
import type { EngineKeys } from "../engine-keys.js";
import { type EvaluateOptions, evaluate } from "../evaluations/evaluate.js";
import type { Evaluation } from "../evaluations/evaluation-record.js";
import { type EvaluationSets, evaluationSets } from "../evaluations/evaluation-sets.js";
import { type EvaluationSummary, evaluationStore } from "../evaluations/evaluation-store.js";
import { flowKeys } from "../flow-control/flow-keys.js";
import { flowScripts } from "../flow-control/flow-scripts.js";
import { withProviderLimits } from "../flow-control/provider-limits.js";
import { createRunQueues, DEFAULT_JOB_OPTIONS } from "../queues/run-queues.js";
import type { CollectOptions, CollectResult } from "../reads/collect.js";
import { createReadsContext } from "../reads/context.js";
import { readsOn } from "../reads/create-run-reads.js";
import type { ListOptions, RunSummary } from "../reads/list.js";
import type { ResultOptions } from "../reads/result.js";
import { type LinkedRunResult, runLinks } from "../reads/view-url.js";
import { clientPatience, type Patiently, patientIteration } from "../redis/client-patience.js";
import { CLOSE_ALLOWANCE_MS, closeWithin, runEach } from "../redis/closing.js";
import {
  CLIENT_COMMAND_RETRIES,
  closeConnection,
  openConnection,
  openSettledWaiter,
} from "../redis/connection.js";
import { markRedisReached } from "../redis/reached-redis.js";
import { redisTarget } from "../redis/redis-target.js";
import { type EngineOptions, openResources } from "../resources.js";
import { createSchedules, type Schedules } from "../schedules/client-schedules.js";
import { openSchedulesQueue, type ScheduleTickData } from "../schedules/schedules-queue.js";
import {
  type CompletedWaitpoint,
  type CompleteOptions,
  completeWaitpoint,
} from "../waitpoints/complete.js";
import { listWaiting, type WaitingOptions, type WaitingWaitpoints } from "../waitpoints/waiting.js";
import { type CancelOptions, type CancelResult, cancel } from "./cancel.js";
import { fire } from "./fire.js";
import type { FireContext } from "./fire-context.js";
import { fireEvaluationCase } from "./fire-evaluation-case.js";
import { type FireManyResult, fireMany } from "./fire-many.js";
import {
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_METADATA_LIMITS,
  type FireResult,
  type FireSpec,
  type MetadataLimits,
} from "./fire-spec.js";
import { withPatientReads } from "./patient-store-reads.js";
import { type RerunOptions, type RerunResult, rerun } from "./rerun.js";
import { type RunEventsOptions, runEvents } from "./run-events.js";
import { type RunStreamOptions, runStream } from "./run-stream.js";

/** Options of {@link createErrand}: the shared {@link EngineOptions}, and the client's own. */
export interface ErrandOptions extends EngineOptions {
  /** The largest input `fire` accepts, in bytes of UTF-8 JSON. Default 256 KiB. */
  maxInputBytes?: number;
  /**
   * Whether runs fired with a `concurrencyKey` (and no `priority`) are queued
   * fairly: round-robin across keys, by BullMQ priority (docs/architecture/flow-control.md#flow-control). Default true; false queues them first in, first out.
   */
  fairQueueing?: boolean;
  /**
   * How much metadata `fire` accepts on one run: `maxKeys` (default 64),
   * `maxKeyBytes` (128), `maxValueBytes` (1 KiB) and `maxBytes` of its JSON
   * (16 KiB); each one given replaces its default.
   */
  metadataLimits?: Partial<MetadataLimits>;
  /** BullMQ options of each run's job (attempts, backoff, retention). Default {@link DEFAULT_JOB_OPTIONS}. */
  jobOptions?: JobsOptions;
  /**
   * The URL the dashboard is served at (`https://ops.example/errand`): every
   * run that `fire`, `fireMany`, `result`, `collect` and `list` return then
   * carries `viewUrl`, the link to its page there. Default none: no `viewUrl`.
   */
  dashboardUrl?: string;
}

/**
 * The errand client. Each of its calls — `fire`, `fireMany`, `result`,
 * `collect`, `list`, `cancel`, `events`, `stream`, the waitpoint calls and
 * the reads of `store` — waits out a Redis that cannot answer now (a Redis
 * Cluster failing over or its slots moving, a server loading, a connection
 * lost or never made, a server frozen) for `CLIENT_PATIENCE_MS` (30 s; a
 * call that waits, as long past its own `waitMs`), then throws
 * `redis_unavailable` (retryable), naming the Redis with its credentials
 * redacted and the fix. It never hangs on a Redis that never answers.
 */
export interface Errand {
  /** Every key and name under this client's prefix. */
  readonly keys: EngineKeys;
  /**
   * The run log this client writes to; its reads (`readLog`, `readHead`,
   * `getBlob`, …) wait out a Redis that cannot answer now, as every call of
   * the client does.
   */
  readonly store: EventStore;
  /**
   * Fires one run; resolves with its runId once its job is enqueued. Refused
   * before anything is written, with an `ErrandError`: `invalid_spec` (metadata
   * past its limits, an input nested over 100 deep included),
   * `unknown_agent`, `unsupported_schema`, `schema_not_supported`,
   * `settings_not_supported`, `input_too_large`, `invalid_input` (with `details.issues`), `not_found` (parent).
   */
  fire(spec: FireSpec): Promise<FireResult>;
  /** Fires many runs: one result per spec, in order; a bad spec fails alone. */
  fireMany(specs: readonly FireSpec[]): Promise<FireManyResult>;
  /**
   * Fires runs again (`runs` by id, or a page of those `filter` matches; at
   * most `MAX_RERUN` a call): each a new root run with its source's agent,
   * input, schema, metadata plus `rerunOf`, on the version that ran unless
   * told otherwise; one result per source run, a run that cannot be re-run
   * failing alone (`agent_version_unavailable` when no worker of its version
   * is live). A call made again fires nothing twice (docs/architecture/firing.md#re-runs).
   *
   * ```ts
   * const page = await errand.rerun({ filter: { status: "failed", agent: "researcher" } });
   * console.log(`${page.succeeded} fired again, ${page.failed} refused`, page.hasMore);
   * ```
   */
  rerun(options: RerunOptions): Promise<RerunResult>;
  /**
   * Cancels a run (with `cascade`, its descendants too). A running run is
   * aborted by the worker holding it; a waiting one is removed from its queue
   * and settled here; a settled one is left as it is (`requested: false`).
   */
  cancel(runId: string, options?: CancelOptions): Promise<CancelResult>;
  /** The run's events; with `follow`, until its terminal event. */
  events(runId: string, options?: RunEventsOptions): AsyncIterable<RunEvent>;
  /**
   * The run's live deltas (docs/architecture/redis-layout.md#the-live-channel-streaming): the text and tool arguments a
   * streaming model (`openaiModel({ stream: true })`) writes, the current
   * request's answer so far first, then each as it arrives, until the run
   * settles. Each entry has an `offset` to resume after (`from`). A `start`
   * opens each model request: what its step streamed before it is void. The
   * log stays the truth: the step's `model-responded` holds the whole answer.
   *
   * ```ts
   * for await (const delta of errand.stream(runId)) {
   *   if (delta.type === "text") process.stdout.write(delta.text);
   * }
   * ```
   */
  stream(runId: string, options?: RunStreamOptions): AsyncIterable<LiveEntry>;
  /**
   * The run's `RunResult` once a collector has stored it, or `undefined`
   * while the run has not settled — after waiting up to `waitMs` (default 0:
   * answer at once), woken by the collector's announcement, never polling.
   * Throws `invalid_spec` for a malformed runId and `not_found` for a run
   * that was never fired or has expired.
   *
   * ```ts
   * const result = await errand.result(runId, { waitMs: 30_000 });
   * if (result?.status === "succeeded") console.log(result.output ?? result.text);
   * ```
   */
  result(runId: string, options?: ResultOptions): Promise<LinkedRunResult | undefined>;
  /**
   * The outcomes of many runs as one batch, one result per run in the order
   * given, each with its own `ok` and `status` (`succeeded`, `failed`,
   * `cancelled`, `pending`, `not_found`): `{ total, succeeded, failed,
   * cancelled, pending, count, results, hasMore, nextCursor?, nextAction? }`.
   * A page holds `count` results, at most `limit` (default 50, at most 500);
   * pass `nextCursor` with the same runIds for the next one. The counts are
   * of every run given, on every page (`failed` includes runs that do not
   * exist), read in the same round trip as the page. With `waitMs` it waits
   * until every run of the page has settled or the time is up. Throws
   * `invalid_spec` for a bad `limit`, `waitMs` or cursor.
   *
   * ```ts
   * const page = await errand.collect(childIds, { limit: 50 });
   * console.log(`${page.total - page.pending} of ${page.total} settled`); // over every child
   * ```
   */
  collect(runIds: readonly string[], options?: CollectOptions): Promise<CollectResult>;
  /**
   * A page of run summaries, newest first, filtered by `status`, `agent` or
   * `parentRunId`: `{ items, count, hasMore, nextCursor? }` (`limit` default
   * 50, at most 500). Runs appear once a collector has indexed them. Throws
   * `invalid_spec` for a bad `limit` or cursor.
   */
  list(options?: ListOptions): Promise<Page<RunSummary>>;
  /**
   * `run` (a result, or a run so far) with its budget's live figures
   * (`budget.tree`: what the budget it counts against spent and has left,
   * read from Redis); `run` itself when it has no budget. `result` already
   * adds them; this is for a run folded from its log.
   */
  withTreeSpend<T extends RunSoFar>(run: T): Promise<T>;
  /** Waitpoints: runs waiting for an answer from outside (docs/architecture/tool-results.md#waitpoints). */
  readonly waitpoints: Waitpoints;
  /**
   * Evaluates a candidate agent against recorded runs (docs/architecture/evaluations.md#evaluations):
   * each run's input goes to the candidate — agent code run in this process,
   * or `{ agent, version }` run by live workers, each case a run on the fleet
   * (refused `agent_version_unavailable`, nothing written, when no worker of
   * that version is live) — with a live model, its tool calls answered from the run's log (`tools: "recorded"`,
   * the default: no tool runs) and its `spawn_agents` from the run's
   * children (none is fired); both results are scored and compared, and the
   * evaluation record is kept in Redis, each case as it finishes. Resolves
   * with the record, changed cases first. Throws `invalid_spec` for bad
   * runs or scorers, `not_found` for a run without a log, an unknown
   * `resume` or saved set.
   *
   * ```ts
   * const evaluation = await errand.evaluate({ runs: { agent: "support", status: "succeeded", limit: 50 }, agent: supportV2 });
   * console.log(evaluation.totals.changed, "of", evaluation.totals.cases, "changed");
   * ```
   */
  evaluate(options: EvaluateOptions): Promise<Evaluation>;
  /** The evaluations kept in Redis. */
  readonly evaluations: Evaluations;
  /**
   * Schedules: runs fired on a cron expression or an interval, each tick
   * exactly once across every worker (docs/architecture/schedules.md#schedules).
   *
   * ```ts
   * await errand.schedules.upsert({ id: "nightly-report", agent: "reporter", input: {}, cron: "0 3 * * *", timezone: "Europe/Paris" });
   * ```
   */
  readonly schedules: Schedules;
  /**
   * Closes the client's queues, its waits in progress and its connections;
   * with Redis unreachable, cuts them after `CLOSE_ALLOWANCE_MS` (a
   * `Redis unreachable; closed without waiting for it` line).
   */
  close(): Promise<void>;
}

/** Answering the waitpoints runs wait on. */
export interface Waitpoints {
  /**
   * Answers waitpoint `token` (see `waitForAnswer`, `askTool`): its run
   * resumes on a worker and the waiting call answers with `answer`, once.
   * Throws an `ErrandError`: `invalid_answer` (with `details.issues`) for an
   * answer that does not match the waitpoint's schema (the run keeps
   * waiting), `waitpoint_answered` for a second answer, `waitpoint_timeout`
   * once it timed out, `run_settled` once its run settled, `not_found`,
   * `invalid_spec` for a string that is not a token.
   *
   * ```ts
   * await errand.waitpoints.complete(token, { approve: true }, { answeredBy: "ada@example.com" });
   * ```
   */
  complete(token: string, answer: unknown, options?: CompleteOptions): Promise<CompletedWaitpoint>;
  /**
   * The waitpoints waiting for an answer, oldest first, a page of `limit`
   * (default 100, at most 500) at a time — pass the `nextCursor` of one page
   * as `cursor` for the next: each with its token, run, question, answer
   * schema and timeout. With `runId`, that run's alone.
   */
  list(options?: WaitingOptions): Promise<WaitingWaitpoints>;
}

/** Reading the evaluations `evaluate` kept. */
export interface Evaluations {
  /** The evaluation `evaluationId`, its cases changed first; `undefined` when there is none. */
  get(evaluationId: string): Promise<Evaluation | undefined>;
  /** A page of evaluations, newest first, without their cases (`limit` default 20, at most 200). */
  list(options?: { limit?: number; cursor?: string }): Promise<Page<EvaluationSummary>>;
  /**
   * Saved run sets (docs/architecture/evaluations.md#saved-run-sets): runs
   * saved under a name, which `evaluate({ runs: { set: name } })` takes.
   *
   * ```ts
   * await errand.evaluations.sets.save({ name: "support-golden", runs: { agent: "support", status: "succeeded", limit: 50 } });
   * ```
   */
  readonly sets: EvaluationSets;
}

/** `schedules` whose every call waits out a Redis that cannot answer now, as the client's others do. */
function patientSchedules(schedules: Schedules, patiently: Patiently): Schedules {
  return {
    upsert: (spec) => patiently("upsert of a schedule", () => schedules.upsert(spec)),
    list: () => patiently("list of schedules", () => schedules.list()),
    pause: (id) => patiently("pause of a schedule", () => schedules.pause(id)),
    resume: (id) => patiently("resume of a schedule", () => schedules.resume(id)),
    remove: (id) => patiently("removal of a schedule", () => schedules.remove(id)),
  };
}

/**
 * Creates a client. Throws `invalid_spec` for a `dashboardUrl` that is not
 * an absolute http(s) URL, and `redis_unavailable` when `connection` names
 * no Redis (`undefined`, or an empty URL: an unset `REDIS_URL`).
 *
 * ```ts
 * const errand = createErrand({ connection: process.env.REDIS_URL! });
 * const { runId } = await errand.fire({ agent: "researcher", input: { question } });
 * for await (const event of errand.events(runId, { follow: true })) console.log(event.type);
 * const result = await errand.result(runId, { waitMs: 30_000 }); // needs a collector running
 * await errand.close();
 * ```
 */
export function createErrand(options: ErrandOptions): Errand {
  const links = runLinks(options.dashboardUrl);
  // Concurrent fires and reads issue their commands together: what one tick issues leaves in one write.
  const resources = openResources(options, {
    name: "client commands",
    coalesceWrites: true,
    commandRetries: CLIENT_COMMAND_RETRIES,
  });
  const { redis, keys, store, logger } = resources;
  const target = redisTarget(options.connection);
  redis.once("ready", () => markRedisReached(target));
  // The jobs of the fires of one tick leave in one write too.
  const queueConnection = openConnection(options.connection, {
    logger,
    name: "client queues",
    coalesceWrites: true,
    commandRetries: CLIENT_COMMAND_RETRIES,
  });
  const queues = createRunQueues(
    queueConnection,
    keys,
    logger,
    options.jobOptions ?? DEFAULT_JOB_OPTIONS,
  );
  let schedulesQueue: Queue<ScheduleTickData> | undefined;
  const openedSchedulesQueue = () => {
    schedulesQueue ??= openSchedulesQueue(queueConnection, keys, logger);
    return schedulesQueue;
  };
  const waiter = openSettledWaiter(options.connection, keys, {
    logger,
    name: "client settled subscriber",
  });
  const patiently = clientPatience(logger, options.connection);
  const reads = readsOn(
    createReadsContext({ ...resources, waiter, shards: store.shards }),
    links,
    patiently,
  );
  const followers = { store, connection: options.connection, logger };
  const context: FireContext = {
    ...resources,
    target,
    queues,
    maxInputBytes: options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
    metadataLimits: { ...DEFAULT_METADATA_LIMITS, ...options.metadataLimits },
    fairQueueing: options.fairQueueing ?? true,
  };
  const evaluations = evaluationStore(redis, keys);
  const sets = evaluationSets({
    redis,
    keys,
    store: withPatientReads(store, patiently),
    listRuns: reads.list,
    now: resources.now,
  });
  const errand: Errand = {
    keys,
    store: withPatientReads(store, patiently),
    fire: async (spec) => links.run(await fire(context, spec)),
    fireMany: async (specs) => links.results(await fireMany(context, specs)),
    rerun: (rerunOptions) =>
      rerun(
        {
          readLog: (runId) => errand.store.readLog(runId),
          list: (listOptions) => errand.list(listOptions),
          fireMany: (specs) => errand.fireMany(specs),
          redis,
          keys,
          now: context.now,
        },
        rerunOptions,
      ),
    cancel: (runId, cancelOptions) =>
      patiently("cancel of a run", () => cancel(context, runId, cancelOptions)),
    events: (runId, eventsOptions) =>
      patientIteration(patiently, "read of a run's events", (last) =>
        runEvents(followers, runId, {
          ...eventsOptions,
          afterSeq: last?.seq ?? eventsOptions?.afterSeq,
        }),
      ),
    stream: (runId, streamOptions) =>
      patientIteration(patiently, "read of a run's live deltas", (last) =>
        runStream(followers, runId, {
          ...streamOptions,
          ...(last === undefined ? {} : { from: last.offset }),
        }),
      ),
    ...reads,
    withTreeSpend: (run) =>
      patiently("read of a budget's spend", () => withTreeSpend(redis, keys, run)),
    evaluate: (evaluateOptions) =>
      evaluate(
        {
          store: withPatientReads(store, patiently),
          evaluations,
          listRuns: reads.list,
          readSet: sets.get,
          collectRuns: reads.collect,
          fleet: {
            redis,
            keys,
            now: resources.now,
            fireCase: (spec, evaluation) => fireEvaluationCase(context, spec, evaluation),
            followLog: (runId, signal) => errand.events(runId, { follow: true, signal }),
          },
          limitModel: (model, flowControl) =>
            withProviderLimits(model, {
              redis,
              keys: flowKeys(keys.prefix),
              scripts: flowScripts(redis),
              flowControl,
            }),
          now: resources.now,
        },
        evaluateOptions,
      ),
    evaluations: {
      get: (evaluationId) =>
        patiently("read of an evaluation", () => evaluations.read(evaluationId)),
      list: (listOptions) => patiently("list of evaluations", () => evaluations.list(listOptions)),
      sets: {
        save: (saveOptions) => patiently("save of a run set", () => sets.save(saveOptions)),
        get: (name) => patiently("read of a run set", () => sets.get(name)),
        list: () => patiently("list of run sets", () => sets.list()),
      },
    },
    waitpoints: {
      complete: (token, answer, completeOptions) =>
        patiently("answer of a waitpoint", () =>
          completeWaitpoint(context, token, answer, completeOptions),
        ),
      list: (waitingOptions) =>
        patiently("list of waitpoints", () =>
          listWaiting({ ...resources, shards: store.shards }, waitingOptions),
        ),
    },
    schedules: patientSchedules(createSchedules(context, openedSchedulesQueue), patiently),
    async close() {
      await closeWithin({
        close: () =>
          runEach([
            () => queues.close(),
            async () => schedulesQueue?.close(),
            () => waiter.close(),
            () => Promise.all([closeConnection(redis), closeConnection(queueConnection)]),
          ]),
        withinMs: CLOSE_ALLOWANCE_MS,
        cut() {
          redis.disconnect();
          queueConnection.disconnect();
        },
        logger,
      });
    },
  };
  return errand;
}
