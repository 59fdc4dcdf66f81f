/**
 * Runs of an agent version no worker runs any more (docs/architecture/firing.md#versions). A run is only ever started or resumed by a worker of the
 * version it was fired for; during a rolling deploy, runs of the old version
 * finish on old workers or wait for one. Once no worker of a version has been
 * live for `versionGraceMs`, the reaper settles that version's open runs
 * `failed` (`agent_version_unavailable`, not retryable) and removes their
 * jobs if still waiting. Only the active runs of agents with such a version
 * are read, so a pass with none reads no log.
 */
import type { RunError } from "@errand/core";
import { runIdOfIndexMember } from "@errand/store/ops";
import { readRunVersion, versionStandings } from "../queues/agent-versions.js";
import { readAgentRegistrations, readRegisteredAgents } from "../queues/registry.js";
import { appendFailure } from "./append-failure.js";
import type { ReaperContext } from "./context.js";
import { removeWaitingJob } from "./deadlines.js";

/** How long a run waits for a worker of its agent version before it fails: 15 minutes. */
export const DEFAULT_VERSION_GRACE_MS = 15 * 60_000;

/** Per agent, its versions with no live worker for the grace period, and since when. */
async function unavailableVersions(
  context: ReaperContext,
  graceMs: number,
): Promise<Map<string, Map<string, string>>> {
  const { redis, keys, now } = context;
  const due = now().getTime() - graceMs;
  const unavailable = new Map<string, Map<string, string>>();
  for (const agent of await readRegisteredAgents(redis, keys)) {
    const standings = versionStandings(await readAgentRegistrations(redis, keys, agent), now());
    const gone = standings.filter(
      ({ unavailableSince }) =>
        unavailableSince !== undefined && Date.parse(unavailableSince) <= due,
    );
    if (gone.length > 0) {
      unavailable.set(agent, new Map(gone.map((s) => [s.version, s.unavailableSince ?? ""])));
    }
  }
  return unavailable;
}

function unavailableError(agent: string, version: string, since: string): RunError {
  return {
    code: "agent_version_unavailable",
    message: `no worker has run version ${version} of agent ${agent} since ${since}: the run is never resumed by other code; fire it again for the current version`,
    retryable: false,
  };
}

/** The agent and version each run looked at was fired for (immutable, so read once). */
export type RunVersions = Map<string, { agent: string; version?: string }>;
/** How many runs {@link RunVersions} remembers before it starts again. */
const RUN_VERSIONS_KEPT = 100_000;

/** The agent and version run `runId` was fired for; `undefined` when it has no log. */
async function versionOfRun(context: ReaperContext, runVersions: RunVersions, runId: string) {
  const known = runVersions.get(runId);
  if (known !== undefined) return known;
  const found = await readRunVersion(context.store, runId);
  if (found === undefined) return undefined;
  if (runVersions.size >= RUN_VERSIONS_KEPT) runVersions.clear();
  runVersions.set(runId, found);
  return found;
}

/**
 * Settles the open runs of every shard fired for an agent version without a
 * live worker for `graceMs`; resolves with how many it settled. A run's
 * version is read from its log once and kept in `runVersions`.
 */
export async function reapUnavailableVersions(
  context: ReaperContext,
  shards: readonly number[],
  graceMs: number,
  runVersions: RunVersions,
): Promise<number> {
  const unavailable = await unavailableVersions(context, graceMs);
  if (unavailable.size === 0) return 0;
  const { redis, keys, store, now, logger } = context;
  let settled = 0;
  for (const shard of shards) {
    const members = await redis.zrange(keys.runIndexByStatus(shard, "active"), 0, -1);
    for (const runId of members.map(runIdOfIndexMember)) {
      const run = await versionOfRun(context, runVersions, runId);
      const since =
        run?.version === undefined ? undefined : unavailable.get(run.agent)?.get(run.version);
      if (run?.version === undefined || since === undefined) continue;
      const error = unavailableError(run.agent, run.version, since);
      if ((await appendFailure(store, runId, error, now().toISOString())) !== "settled") continue;
      await removeWaitingJob(context, runId);
      settled += 1;
      logger.warn(
        { runId, agent: run.agent, agentVersion: run.version, shard },
        "run of an agent version without workers settled",
      );
    }
  }
  return settled;
}
