/**
 * Keys and names the engine adds to the store's layout: the BullMQ prefix,
 * the registry of queues and agents, worker heartbeats, the cancel channel,
 * the collectors' dead letters and the access keys. Every per-shard key carries its shard's
 * hash tag `{sN}` (docs/architecture/redis-layout.md). Everything starts with the same
 * prefix as the store's keys.
 */
import { shardOfRunId } from "@errand/core/ops";
import type { StoreKeys } from "@errand/store";
import { shardTag, storeKeys } from "@errand/store/ops";

/** Every key and name of the engine for one prefix, plus the store's. */
export interface EngineKeys extends StoreKeys {
  /**
   * The BullMQ prefix: `<prefix>:{queue}`. The hash tag keeps every key of a
   * queue in one Redis Cluster slot, as BullMQ's scripts need.
   */
  readonly bullmqPrefix: string;
  /** Registered queues: HASH, field queue name, value JSON `QueueRegistration`. */
  readonly queueRegistry: string;
  /** How each queue runs one agent: HASH, field queue name, value JSON `AgentRegistration`. */
  agentRegistry(agent: string): string;
  /**
   * The ids of workers that announced themselves: SET of workerIds, pruned by
   * its readers of the ids whose {@link worker} key expired.
   */
  readonly workers: string;
  /**
   * One worker's heartbeat: STRING, JSON `WorkerHeartbeat`, expiring a few
   * beats after the worker's last (so a crashed worker's goes away).
   */
  worker(workerId: string): string;
  /** Pub/sub channel on which a cancel's runId is published to every worker. */
  readonly cancelChannel: string;
  /**
   * Shard stream entries the collectors gave up on: STREAM, fields entryId,
   * error, deliveries, consumer, fields (the original entry's fields as JSON).
   */
  deadLetters(shard: number): string;
  /**
   * Waitpoints of a shard's runs waiting for an answer: ZSET, score when
   * each was created (ms), member its token. A view: readers check each
   * token against its run's log.
   */
  waitingWaitpoints(shard: number): string;
  /**
   * The children of a run not yet counted settled: SET of runIds, in the
   * parent's shard; each added as it is linked, removed by the collector
   * as it counts the child in {@link childrenCounts}
   * (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child).
   */
  childrenPending(runId: string): string;
  /**
   * How many of a run's children settled, by status: HASH of `succeeded`,
   * `failed` and `cancelled`, in the parent's shard; written with
   * {@link childrenPending} by the collector (`lua/count-children-2.lua`).
   */
  childrenCounts(runId: string): string;
  /**
   * What a run tree spent against its budgets: HASH on the tree root's
   * shard, fields per budget and per run (see `lua/debit-budget-1.lua`).
   */
  budget(treeRunId: string): string;
  /**
   * One access key's record: HASH with the SHA-256 of the key (never the
   * key), its scopes, agents, tenant, name, rate and dates
   * (docs/architecture/redis-layout.md#access-keys). Every access key lives
   * under the `{access}` hash tag, one Redis Cluster slot.
   */
  accessKey(keyId: string): string;
  /** The ids of every access key: ZSET, score its creation time (ms). */
  readonly accessKeyIds: string;
  /** One access key's request budget (`admit`): HASH of `tokens` and `at`, expiring when idle. */
  accessRate(keyId: string): string;
  /**
   * Every evaluation (docs/architecture/evaluations.md#the-evaluation-record): ZSET,
   * score when each was created (ms), member its id.
   */
  readonly evaluations: string;
  /**
   * One evaluation: HASH, field `spec` (what it evaluates, JSON), `state`
   * (where it stands, JSON) and `case:<runId>` (each finished case, JSON).
   */
  evaluation(evaluationId: string): string;
  /**
   * The saved run sets evaluations take (docs/architecture/evaluations.md#saved-run-sets):
   * HASH, field the set's name, value JSON `EvaluationSet`.
   */
  readonly evaluationSets: string;
  /**
   * Where each call of a candidate run on the fleet was answered from
   * (docs/architecture/evaluations.md#candidates-on-the-fleet): HASH, field
   * callId, value JSON; written by the worker, read and deleted by the
   * evaluation.
   */
  evaluationCalls(evaluationId: string, candidateRunId: string): string;
  /**
   * The schedules (docs/architecture/schedules.md#redis-layout): HASH, field
   * schedule id, value JSON `ScheduleRecord`.
   */
  readonly schedules: string;
  /** The runs one schedule made: ZSET, member runId, score its tick (ms since the epoch); the newest kept. */
  scheduleRuns(scheduleId: string): string;
  /**
   * The ticks of one schedule decided so far, when its `overlap` is `skip` or
   * `cancel-previous`: ZSET, score the tick (ms), member `<tick>:fire:<decided at ms>`
   * or `<tick>:skip` (see `lua/decide-schedule-ticks-1.lua`); the newest kept.
   */
  scheduleTicks(scheduleId: string): string;
  /** The BullMQ queue whose job schedulers tick the schedules (under {@link bullmqPrefix}). */
  readonly schedulesQueue: string;
}

/** The engine's keys for `prefix` (default `errand`). */
export function engineKeys(prefix?: string): EngineKeys {
  const store = storeKeys(prefix);
  const base = store.prefix;
  return {
    ...store,
    bullmqPrefix: `${base}:{queue}`,
    queueRegistry: `${base}:registry:queues`,
    agentRegistry: (agent) => `${base}:registry:agent:${agent}`,
    workers: `${base}:worker-ids`,
    worker: (workerId) => `${base}:worker:${workerId}`,
    cancelChannel: `${base}:cancel`,
    deadLetters: (shard) => `${base}:${shardTag(shard)}:dead`,
    waitingWaitpoints: (shard) => `${base}:${shardTag(shard)}:waitpoints`,
    childrenPending: (runId) =>
      `${base}:${shardTag(shardOfRunId(runId))}:children-pending:${runId}`,
    childrenCounts: (runId) => `${base}:${shardTag(shardOfRunId(runId))}:children-counts:${runId}`,
    budget: (treeRunId) => `${base}:${shardTag(shardOfRunId(treeRunId))}:budget:${treeRunId}`,
    accessKey: (keyId) => `${base}:{access}:key:${keyId}`,
    accessKeyIds: `${base}:{access}:keys`,
    accessRate: (keyId) => `${base}:{access}:rate:${keyId}`,
    evaluations: `${base}:evaluations`,
    evaluation: (evaluationId) => `${base}:evaluation:${evaluationId}`,
    evaluationSets: `${base}:evaluation-sets`,
    evaluationCalls: (evaluationId, candidateRunId) =>
      `${base}:evaluation-calls:${evaluationId}:${candidateRunId}`,
    schedules: `${base}:schedules`,
    scheduleRuns: (scheduleId) => `${base}:schedule-runs:${scheduleId}`,
    scheduleTicks: (scheduleId) => `${base}:schedule-ticks:${scheduleId}`,
    schedulesQueue: `${base.replaceAll(":", ".")}#schedules`,
  };
}
