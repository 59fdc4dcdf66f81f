/**
 * The overview: each queue's jobs and recent runs, the workers with their
 * heartbeats and agents, each agent's versions (live or not, runs waiting), the run counts, the rates of the last minutes and
 * the collectors' backlog.
 *
 * A queue's `waiting`, `active` and `delayed` (parked runs) are BullMQ's own
 * job counts; `live` says whether a worker of it beat lately, `lastSeenAt`
 * when one last did (runs wait in a queue without a live worker). Completed
 * and failed jobs are kept only for a while (the log is the truth), so what
 * completed and failed is counted in runs: the runs of the queue's agents that settled in
 * the rates' window (an agent that several queues serve counts in the one
 * whose workers were seen last).
 */
import type { SettledStatus } from "@errand/core";
import {
  openConnection,
  type QueueRegistration,
  readQueueRegistrations,
  shardsOfQueue,
} from "@errand/engine";
import {
  type AgentVersionStanding,
  type CollectorMetrics,
  closeConnection,
  DEFAULT_HEARTBEAT_MS,
  isLive,
  logBullErrors,
  readAgentVersions,
  readCollectorMetrics,
  readJobCounts,
  readWorkerHeartbeats,
  sumJobCounts,
  untakenQueueShards,
  type WorkerHeartbeat,
} from "@errand/engine/ops";
import { Queue } from "bullmq";
import type { DashboardContext } from "../context.js";
import { createSettledRuns, type SettledRun } from "./settled-runs.js";
import { THROUGHPUT_MINUTES, type Throughput, throughputOf } from "./throughput.js";

/** A worker is shown stale when its last heartbeat is older than this: 3 default beats. */
const STALE_WORKER_MS = 3 * DEFAULT_HEARTBEAT_MS;

/** How long the collectors' metrics are reused before being read again. */
const COLLECTOR_METRICS_TTL_MS = 5_000;

/** One queue in the overview. */
export interface QueueOverview {
  name: string;
  /** The agents its workers run. */
  agents: string[];
  /** Whether a worker of it beat within its liveness window. */
  live: boolean;
  /** When a worker of it last beat; absent for a queue the registry does not know. */
  lastSeenAt?: string;
  /** How many BullMQ queues (shards) it is spread over: its counts are their sums. */
  shards: number;
  /**
   * Its shards that none of its live workers takes (`takeQueueShards`): their
   * runs wait until a worker takes them. Empty when every shard is taken or
   * no worker is live (then `live` says so).
   */
  untakenShards: number[];
  /** BullMQ's counts: jobs waiting (or prioritized, or paused), running, and delayed (parked runs). */
  waiting: number;
  active: number;
  delayed: number;
  /** Runs of its agents settled in the rates' window, by status. */
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** One worker in the overview. */
export type WorkerOverview = WorkerHeartbeat & {
  /** Milliseconds since its last heartbeat. */
  heartbeatAgeMs: number;
  /** True when its last heartbeat is older than {@link STALE_WORKER_MS}. */
  stale: boolean;
};

/** How many runs the run indexes hold, by status (`active`: queued or running). */
export interface RunCounts {
  active: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** `GET /api/overview`. */
export interface Overview {
  at: string;
  queues: QueueOverview[];
  workers: WorkerOverview[];
  /** Each agent's versions: whether a worker of it is live, and its runs waiting. */
  versions: AgentVersionStanding[];
  runs: RunCounts;
  throughput: Throughput & { windowMinutes: number };
  collectors: Pick<CollectorMetrics, "lag" | "pending" | "deadLettered">;
}

/** Reads overviews; keeps the queues and the settled runs it has learnt between reads. */
export interface OverviewReader {
  read(): Promise<Overview>;
  close(): Promise<void>;
}

function queueNames(
  registered: readonly QueueRegistration[],
  workers: readonly WorkerHeartbeat[],
): string[] {
  const names = new Set<string>(registered.map(({ queue }) => queue));
  for (const worker of workers) for (const queue of worker.queues) names.add(queue);
  return [...names].sort();
}

/** Each agent's queue for the settled counts: of the queues serving it, the one seen last. */
function queueOfEachAgent(registered: readonly QueueRegistration[]): Map<string, string> {
  const latest = new Map<string, QueueRegistration>();
  for (const record of registered) {
    for (const agent of record.agents) {
      const known = latest.get(agent);
      if (known === undefined || record.lastSeenAt > known.lastSeenAt) latest.set(agent, record);
    }
  }
  return new Map([...latest].map(([agent, record]) => [agent, record.queue]));
}

function settledByQueue(
  runs: readonly SettledRun[],
  registered: readonly QueueRegistration[],
  sinceMs: number,
): Map<string, Record<SettledStatus, number>> {
  const queueOfAgent = queueOfEachAgent(registered);
  const counts = new Map<string, Record<SettledStatus, number>>();
  for (const run of runs) {
    if (run.settledAtMs < sinceMs) continue;
    const queue = queueOfAgent.get(run.agent);
    if (queue === undefined) continue;
    const entry = counts.get(queue) ?? { succeeded: 0, failed: 0, cancelled: 0 };
    entry[run.status] += 1;
    counts.set(queue, entry);
  }
  return counts;
}

/** An overview reader on `context`. */
export function createOverviewReader(context: DashboardContext): OverviewReader {
  const { redis, keys, options } = context;
  const queues = new Map<string, Queue>();
  let queueConnection: ReturnType<typeof openConnection> | undefined;
  const settled = createSettledRuns(context);
  let collectorMetrics: { at: number; value: Promise<CollectorMetrics> } | undefined;

  function shardQueues(name: string): Queue[] {
    return shardsOfQueue(keys, name).map((shard) => {
      const key = `${shard.prefix}:${shard.name}`;
      let opened = queues.get(key);
      if (!opened) {
        queueConnection ??= openConnection(options.connection, {
          logger: options.logger,
          name: "dashboard queues",
        });
        opened = new Queue(shard.name, { connection: queueConnection, prefix: shard.prefix });
        logBullErrors(opened, options.logger, `queue ${shard.name}`);
        queues.set(key, opened);
      }
      return opened;
    });
  }

  function collectorMetricsAt(nowMs: number): Promise<CollectorMetrics> {
    if (collectorMetrics === undefined || nowMs - collectorMetrics.at > COLLECTOR_METRICS_TTL_MS) {
      const value = readCollectorMetrics(redis, keys, { shards: options.shards });
      value.catch(() => {
        collectorMetrics = undefined;
      });
      collectorMetrics = { at: nowMs, value };
    }
    return collectorMetrics.value;
  }

  async function readQueue(
    name: string,
    record: QueueRegistration | undefined,
    settledCounts: Record<SettledStatus, number> | undefined,
    untakenShards: number[],
    now: Date,
  ): Promise<QueueOverview> {
    const shards = shardQueues(name);
    const counts = sumJobCounts(await Promise.all(shards.map(readJobCounts)));
    return {
      name,
      agents: record?.agents ?? [],
      live: record !== undefined && isLive(record, now),
      ...(record === undefined ? {} : { lastSeenAt: record.lastSeenAt }),
      shards: shards.length,
      untakenShards,
      waiting: counts.waiting,
      active: counts.active,
      delayed: counts.delayed,
      succeeded: settledCounts?.succeeded ?? 0,
      failed: settledCounts?.failed ?? 0,
      cancelled: settledCounts?.cancelled ?? 0,
    };
  }

  async function readRunCounts(): Promise<RunCounts> {
    const shards = Array.from({ length: options.shards }, (_, shard) => shard);
    const count = async (status: keyof RunCounts) => {
      const sizes = await Promise.all(
        shards.map((shard) => redis.zcard(keys.runIndexByStatus(shard, status))),
      );
      return sizes.reduce((sum, size) => sum + size, 0);
    };
    const [active, succeeded, failed, cancelled] = await Promise.all(
      (["active", "succeeded", "failed", "cancelled"] as const).map(count),
    );
    return { active: active!, succeeded: succeeded!, failed: failed!, cancelled: cancelled! };
  }

  return {
    async read() {
      const now = options.now();
      const nowMs = now.getTime();
      const [registered, heartbeats, versions, runs, settledRuns, metrics] = await Promise.all([
        readQueueRegistrations(redis, keys),
        readWorkerHeartbeats(redis, keys),
        readAgentVersions(redis, keys, now),
        readRunCounts(),
        settled.refresh(nowMs),
        collectorMetricsAt(nowMs),
      ]);
      const throughput = throughputOf(settledRuns, nowMs);
      const windowStart = Date.parse(throughput.minutes[0]?.minute ?? now.toISOString());
      const byQueue = settledByQueue(settledRuns, registered, windowStart);
      const records = new Map(registered.map((record) => [record.queue, record]));
      const untaken = untakenQueueShards(heartbeats);
      const queueOverviews = await Promise.all(
        queueNames(registered, heartbeats).map((name) =>
          readQueue(
            name,
            records.get(name),
            byQueue.get(name),
            untaken.filter(({ queue }) => queue === name).map(({ shard }) => shard),
            now,
          ),
        ),
      );
      const workers = heartbeats
        .map((heartbeat): WorkerOverview => {
          const heartbeatAgeMs = Math.max(0, nowMs - Date.parse(heartbeat.lastSeenAt));
          return { ...heartbeat, heartbeatAgeMs, stale: heartbeatAgeMs > STALE_WORKER_MS };
        })
        .sort((a, b) => a.workerId.localeCompare(b.workerId));
      return {
        at: now.toISOString(),
        queues: queueOverviews,
        workers,
        versions,
        runs,
        throughput: { ...throughput, windowMinutes: THROUGHPUT_MINUTES },
        collectors: {
          lag: metrics.lag,
          pending: metrics.pending,
          deadLettered: metrics.deadLettered,
        },
      };
    },
    async close() {
      await Promise.all([...queues.values()].map((opened) => opened.close()));
      queues.clear();
      if (queueConnection) await closeConnection(queueConnection);
      queueConnection = undefined;
    },
  };
}
