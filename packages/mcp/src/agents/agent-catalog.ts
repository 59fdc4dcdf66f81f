/**
 * The agents `list_agents` shows (docs/architecture/mcp.md#tools): each
 * registered agent with what its workers registered of it — its one-line
 * description, input and output schemas (of the newest registration), its
 * versions (live or not, runs waiting), how many workers that run it beat
 * lately, and its runs waiting in their queues. Read from the registry the
 * workers keep in Redis; nothing is cached.
 */
import { type EngineKeys, type RedisConnection, readQueueRegistrations } from "@errand/engine";
import {
  type AgentRegistration,
  DEFAULT_HEARTBEAT_MS,
  readAgentRegistrations,
  readAgentVersions,
  readWorkerHeartbeats,
} from "@errand/engine/ops";

/** A worker counts as live while its last heartbeat is younger than this: 3 default beats. */
const LIVE_WORKER_MS = 3 * DEFAULT_HEARTBEAT_MS;

/** One version of an agent. */
export interface AgentVersionListing {
  version: string;
  /** Whether a worker of this version beat lately. */
  live: boolean;
  /** Its runs waiting in their queues (counted among the first jobs of each). */
  runsWaiting: number;
}

/** One agent as `list_agents` shows it. */
export interface AgentListing {
  name: string;
  description?: string;
  /** The JSON Schema its input must match, when it has one. */
  inputSchema?: Record<string, unknown>;
  /** The JSON Schema of the output every run of it records, when it has one. */
  outputSchema?: Record<string, unknown>;
  versions: AgentVersionListing[];
  /** How many workers that run it beat lately. */
  liveWorkers: number;
  /** Its runs waiting in their queues, over every version. */
  runsWaiting: number;
}

/** The registration written last: what the agent is now. */
function newest(registrations: readonly AgentRegistration[]): AgentRegistration | undefined {
  return [...registrations]
    .sort((a, b) => (a.startedAt ?? a.lastSeenAt).localeCompare(b.startedAt ?? b.lastSeenAt))
    .at(-1);
}

/** Reads every registered agent, sorted by name, from the registry on `redis` under `keys`. */
export async function readAgentCatalog(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date = new Date(),
): Promise<AgentListing[]> {
  const [queues, versions, workers] = await Promise.all([
    readQueueRegistrations(redis, keys),
    readAgentVersions(redis, keys, now),
    readWorkerHeartbeats(redis, keys),
  ]);
  const names = [...new Set(queues.flatMap((queue) => queue.agents))].sort();
  const liveWorkers = workers.filter(
    (worker) => now.getTime() - Date.parse(worker.lastSeenAt) < LIVE_WORKER_MS,
  );
  return Promise.all(
    names.map(async (name): Promise<AgentListing> => {
      const registration = newest(await readAgentRegistrations(redis, keys, name));
      const own = versions
        .filter((standing) => standing.agent === name)
        .map(({ version, live, waitingRuns }) => ({ version, live, runsWaiting: waitingRuns }));
      return {
        name,
        ...(registration?.description === undefined
          ? {}
          : { description: registration.description }),
        ...(registration?.inputSchema === undefined
          ? {}
          : { inputSchema: registration.inputSchema }),
        ...(registration?.outputSchema === undefined
          ? {}
          : { outputSchema: registration.outputSchema }),
        versions: own,
        liveWorkers: liveWorkers.filter((worker) => worker.agents.includes(name)).length,
        runsWaiting: own.reduce((sum, version) => sum + version.runsWaiting, 0),
      };
    }),
  );
}
