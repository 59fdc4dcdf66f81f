/**
 * The versions of each agent that workers registered, whether a worker of
 * each is live, and how many runs wait for each (docs/architecture/firing.md#versions): what the reaper settles `agent_version_unavailable` by, and
 * what `doctor` and the dashboard show.
 */
import type { ModelCapabilities } from "@errand/runtime";
import { createEventStore, type EventStore } from "@errand/store";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { readEachShard } from "./queue-backlog.js";
import {
  type AgentRegistration,
  isLive,
  LIVE_HEARTBEATS,
  readAgentRegistrations,
  readRegisteredAgents,
} from "./registry.js";

/** One version of one agent, over every queue whose workers registered it. */
export interface AgentVersionStanding {
  agent: string;
  version: string;
  /** The agent's one-line description in this version, when it has one. */
  description?: string;
  /**
   * What the model of this version honours (its provider first), as its
   * newest record says, when the model declares it.
   */
  capabilities?: ModelCapabilities;
  /** Whether a worker of this version is live. */
  live: boolean;
  /** The queues whose workers run it, sorted. */
  queues: string[];
  /** When a worker of it last beat (ISO-8601). */
  lastSeenAt: string;
  /** When its last worker closed or stopped beating (ISO-8601), while none is live. */
  unavailableSince?: string;
  /** Its runs waiting in its queues (waiting or delayed), counted among the first {@link SAMPLED_WAITING_JOBS} of each queue shard. */
  waitingRuns: number;
}

/** The most jobs of a queue whose runs' versions are read to count its waiting runs. */
const SAMPLED_WAITING_JOBS = 200;

/** The agent and version run `runId` was fired for, from its `run-queued`; `undefined` for no log. */
export async function readRunVersion(
  store: EventStore,
  runId: string,
): Promise<{ agent: string; version?: string } | undefined> {
  const [queued] = await store.readLog(runId, { count: 1 });
  if (queued?.type !== "run-queued") return undefined;
  const { agent, agentVersion } = queued.data;
  return agentVersion === undefined ? { agent } : { agent, version: agentVersion };
}

/** When the worker of `registration` stopped: when it closed, or when its liveness window ended. */
function goneAt(registration: AgentRegistration): number {
  if (registration.stoppedAt !== undefined) return Date.parse(registration.stoppedAt);
  return Date.parse(registration.lastSeenAt) + LIVE_HEARTBEATS * registration.heartbeatMs;
}

/**
 * The versions of one agent in its `registrations` as of `now`, sorted by
 * version, with `waiting` runs by version; records without a version
 * (workers older than versions) are left out.
 */
export function versionStandings(
  registrations: readonly AgentRegistration[],
  now: Date,
  waiting: ReadonlyMap<string, number> = new Map(),
): AgentVersionStanding[] {
  const byVersion = new Map<string, AgentRegistration[]>();
  for (const registration of registrations) {
    if (registration.version === undefined) continue;
    byVersion.set(registration.version, [
      ...(byVersion.get(registration.version) ?? []),
      registration,
    ]);
  }
  return [...byVersion.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([version, records]) => {
      const live = records.some((record) => isLive(record, now));
      const lastSeenAt =
        records
          .map((record) => record.lastSeenAt)
          .sort()
          .at(-1) ?? "";
      const gone = Math.max(...records.map(goneAt));
      const description = records.find((record) => record.description !== undefined)?.description;
      const capabilities = [...records]
        .sort((a, b) => a.lastSeenAt.localeCompare(b.lastSeenAt))
        .findLast((record) => record.capabilities !== undefined)?.capabilities;
      return {
        agent: records[0]?.name ?? "",
        version,
        ...(description === undefined ? {} : { description }),
        ...(capabilities === undefined ? {} : { capabilities }),
        live,
        queues: [...new Set(records.map((record) => record.queue))].sort(),
        lastSeenAt,
        ...(live ? {} : { unavailableSince: new Date(gone).toISOString() }),
        waitingRuns: waiting.get(version) ?? 0,
      };
    });
}

/** How many runs of `agent` wait in `queues`, by version (of the first jobs of each). */
async function countWaitingByVersion(
  redis: RedisConnection,
  keys: EngineKeys,
  store: EventStore,
  agent: string,
  queues: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const name of queues) {
    await readEachShard(redis, keys, name, async (queue) => {
      const jobs = await queue.getJobs(
        ["waiting", "prioritized", "paused", "delayed"],
        0,
        SAMPLED_WAITING_JOBS - 1,
      );
      for (const job of jobs) {
        if (job?.id === undefined || job.name !== agent) continue;
        const version = (await readRunVersion(store, job.id))?.version;
        if (version !== undefined) counts.set(version, (counts.get(version) ?? 0) + 1);
      }
    });
  }
  return counts;
}

/** The versions of every registered agent, by agent then version, with their waiting runs. */
export async function readAgentVersions(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date,
): Promise<AgentVersionStanding[]> {
  const store = createEventStore({ redis, prefix: keys.prefix });
  const agents = await readRegisteredAgents(redis, keys);
  const standings = await Promise.all(
    agents.map(async (agent) => {
      const registrations = await readAgentRegistrations(redis, keys, agent);
      const queues = [...new Set(registrations.map(({ queue }) => queue))];
      const waiting = await countWaitingByVersion(redis, keys, store, agent, queues);
      return versionStandings(registrations, now, waiting);
    }),
  );
  return standings.flat();
}
