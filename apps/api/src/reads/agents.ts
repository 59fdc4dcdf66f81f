/**
 * The agents the workers of a deployment run, as the registry keeps them:
 * for each, its description and input and output schemas (those of its
 * newest live version, else its newest), its versions with whether a worker
 * of each is live and how many runs wait for it, and how many live workers
 * run it.
 */
import {
  isLive,
  readAgentRegistrations,
  readAgentVersions,
  readWorkerHeartbeats,
} from "@errand/engine/ops";
import type { z } from "@hono/zod-openapi";
import type { ApiContext } from "../context.js";
import type { AgentInfo } from "../schemas/responses.js";

/** Every registered agent, by name. */
export async function readAgents(context: ApiContext): Promise<z.infer<typeof AgentInfo>[]> {
  const { redis } = context;
  const { keys } = context.errand;
  const now = new Date();
  const [standings, heartbeats] = await Promise.all([
    readAgentVersions(redis, keys, now),
    readWorkerHeartbeats(redis, keys),
  ]);
  const names = [...new Set(standings.map((standing) => standing.agent))].sort();
  return Promise.all(
    names.map(async (name) => {
      const registrations = (await readAgentRegistrations(redis, keys, name)).sort((a, b) =>
        (b.startedAt ?? b.lastSeenAt).localeCompare(a.startedAt ?? a.lastSeenAt),
      );
      const newest =
        registrations.find((registration) => isLive(registration, now)) ?? registrations[0];
      const versions = standings
        .filter((standing) => standing.agent === name)
        .map(({ version, live, lastSeenAt, waitingRuns }) => ({
          version,
          live,
          lastSeenAt,
          waitingRuns,
        }));
      return {
        name,
        ...(newest?.description === undefined ? {} : { description: newest.description }),
        ...(newest?.inputSchema === undefined ? {} : { inputSchema: newest.inputSchema }),
        ...(newest?.outputSchema === undefined ? {} : { outputSchema: newest.outputSchema }),
        versions,
        liveWorkers: heartbeats.filter((heartbeat) => heartbeat.agents.includes(name)).length,
      };
    }),
  );
}
