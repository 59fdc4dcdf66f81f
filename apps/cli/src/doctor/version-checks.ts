/**
 * Agent versions (docs/architecture/firing.md#versions): which versions of each
 * agent have a live worker, and how many runs wait for each. Runs of a
 * version without a live worker wait for one until the reaper's version
 * grace is over, then fail `agent_version_unavailable`: doctor names them.
 * Each version is listed with its agent's description, when it has one.
 */
import type { EngineKeys, RedisConnection } from "@errand/engine";
import { type AgentVersionStanding, readAgentVersions } from "@errand/engine/ops";
import { type DoctorCheck, passed, problem } from "./check.js";

const NAME = "agent versions";

function runs(count: number): string {
  return `${count} run${count === 1 ? "" : "s"}`;
}

/** One version as doctor lists it: where it stands, then its agent's description when it has one. */
function listedVersion(standing: AgentVersionStanding): string {
  const { agent, version, live, waitingRuns, description } = standing;
  const stands = `${agent} ${version}: ${live ? "live" : "no live worker"}, ${runs(waitingRuns)} waiting`;
  return description === undefined ? stands : `${stands} — ${description}`;
}

/** Every version that runs wait for has a live worker; the detail lists each agent's versions. */
export async function checkAgentVersions(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date,
): Promise<DoctorCheck> {
  const versions = await readAgentVersions(redis, keys, now);
  if (versions.length === 0) return passed(NAME, "no versioned agent registered yet");
  const listed = versions.map(listedVersion).join("; ");
  const stranded = versions.filter(({ live, waitingRuns }) => !live && waitingRuns > 0);
  if (stranded.length === 0) return passed(NAME, listed);
  const named = stranded.map(({ agent, version }) => `${agent} ${version}`).join(", ");
  return problem(
    NAME,
    listed,
    `runs wait for ${named}, which no live worker runs: start a worker of that version to finish them, or let the reaper fail them agent_version_unavailable once its versionGraceMs is over`,
  );
}
