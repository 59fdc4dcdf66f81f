/**
 * The versions of each agent that workers registered, and whether a worker
 * of each is live (docs/architecture.md §7, Versions): what the reaper
 * settles `agent_version_unavailable` by, and what `doctor` and the
 * dashboard show.
 */
import type { RedisConnection } from "./connection.js";
import type { EngineKeys } from "./engine-keys.js";
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
  /** Whether a worker of this version is live. */
  live: boolean;
  /** The queues whose workers run it, sorted. */
  queues: string[];
  /** When a worker of it last beat (ISO-8601). */
  lastSeenAt: string;
  /** When its last worker closed or stopped beating (ISO-8601), while none is live. */
  unavailableSince?: string;
}

/** When the worker of `registration` stopped: when it closed, or when its liveness window ended. */
function goneAt(registration: AgentRegistration): number {
  if (registration.stoppedAt !== undefined) return Date.parse(registration.stoppedAt);
  return Date.parse(registration.lastSeenAt) + LIVE_HEARTBEATS * registration.heartbeatMs;
}

/**
 * The versions of one agent in its `registrations` as of `now`, sorted by
 * version; records without a version (workers older than versions) are left out.
 */
export function versionStandings(
  registrations: readonly AgentRegistration[],
  now: Date,
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
      return {
        agent: records[0]?.name ?? "",
        version,
        live,
        queues: [...new Set(records.map((record) => record.queue))].sort(),
        lastSeenAt,
        ...(live ? {} : { unavailableSince: new Date(gone).toISOString() }),
      };
    });
}

/** The versions of every registered agent, by agent then version. */
export async function readAgentVersions(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date,
): Promise<AgentVersionStanding[]> {
  const agents = await readRegisteredAgents(redis, keys);
  const standings = await Promise.all(
    agents.map(async (agent) =>
      versionStandings(await readAgentRegistrations(redis, keys, agent), now),
    ),
  );
  return standings.flat();
}
