/**
 * Runs every doctor check in order against one Redis, or against each master
 * of a Redis Cluster. A check that throws (a command the server refuses, say)
 * becomes a problem of its own instead of ending the report; a cluster reply
 * in its error (`MOVED`, `ASK`, `CLUSTERDOWN`, `TRYAGAIN`) is explained for
 * what it is.
 */
import { type EngineKeys, type RedisConnection, readQueueRegistrations } from "@errand/engine";
import { Cluster, type Redis } from "ioredis";
import { describeError } from "../output.js";
import { type DoctorCheck, problem } from "./check.js";
import {
  checkClusterState,
  explainClusterReply,
  isClusterNode,
  nodeAddress,
  oneNodeOfCluster,
  probeKeyOn,
} from "./cluster-checks.js";
import { checkCoLocation } from "./co-location.js";
import { checkCollectors, checkWorkers } from "./deployment-checks.js";
import { checkMemory, checkWrites } from "./memory-checks.js";
import { checkWaitingRuns } from "./queue-checks.js";
import { checkEvictionPolicy, checkPersistence, checkVersion } from "./server-checks.js";
import { checkQueueShardsTaken } from "./shard-checks.js";
import { checkAgentVersions } from "./version-checks.js";

/** One named check, to run against a reachable Redis. */
interface NamedCheck {
  name: string;
  run(): Promise<DoctorCheck>;
}

async function runCheck(check: NamedCheck): Promise<DoctorCheck> {
  try {
    return await check.run();
  } catch (error) {
    const message = describeError(error);
    const reply = explainClusterReply(message);
    if (reply)
      return problem(check.name, `could not check: ${reply.meaning} (${message})`, reply.fix);
    return problem(
      check.name,
      `could not check: ${message}`,
      "make sure this connection's user may run INFO, CLUSTER and XINFO (the ACL errand doctor --acl prints allows them)",
    );
  }
}

/** The checks of one server: its version, eviction policy, memory, a write and persistence; `suffix` names it. */
function serverChecks(server: Redis, keys: EngineKeys, suffix = "", probe?: () => Promise<string>) {
  const named = (name: string, run: () => Promise<DoctorCheck>): NamedCheck => ({
    name: `${name}${suffix}`,
    run: async () => {
      const check = await run();
      return { ...check, name: `${check.name}${suffix}` };
    },
  });
  return [
    named("redis version", () => checkVersion(server)),
    named("maxmemory-policy", () => checkEvictionPolicy(server)),
    named("memory", () => checkMemory(server)),
    named("writes", async () => checkWrites(server, keys, await probe?.())),
    named("persistence", () => checkPersistence(server)),
  ];
}

/** The checks of errand's keys and processes, read through `redis`; `server` answers `CLUSTER` and `INFO`. */
function deploymentChecks(redis: RedisConnection, server: Redis, keys: EngineKeys, now: Date) {
  return [
    {
      name: "cluster hash-tag co-location",
      run: async () => {
        const queues = (await readQueueRegistrations(redis, keys)).map(({ queue }) => queue);
        return checkCoLocation(server, keys, queues);
      },
    },
    { name: "worker heartbeats", run: () => checkWorkers(redis, keys, now) },
    { name: "runs waiting for a worker", run: () => checkWaitingRuns(redis, keys, now) },
    { name: "queue shards taken", run: () => checkQueueShardsTaken(redis, keys) },
    { name: "agent versions", run: () => checkAgentVersions(redis, keys, now) },
    { name: "collectors", run: () => checkCollectors(redis, keys) },
  ];
}

/** Every check of a cluster: its state, each master's own checks, then errand's keys across it. */
function clusterChecks(cluster: Cluster, keys: EngineKeys, now: Date): NamedCheck[] {
  const masters = cluster.nodes("master");
  return [
    { name: "cluster state", run: () => checkClusterState(masters) },
    ...masters.flatMap((master) =>
      serverChecks(master, keys, ` (${nodeAddress(master)})`, () => probeKeyOn(master, keys)),
    ),
    ...deploymentChecks(cluster, masters[0]!, keys, now),
  ];
}

/**
 * Every check after reachability, in the order the report lists them. `url`
 * (credentials redacted) names the server in the problem of a one-server URL
 * given for a node of a cluster.
 */
export async function runServerChecks(
  redis: RedisConnection,
  keys: EngineKeys,
  now: Date,
  url: string,
): Promise<DoctorCheck[]> {
  const checks: NamedCheck[] =
    redis instanceof Cluster
      ? clusterChecks(redis, keys, now)
      : [
          ...serverChecks(redis, keys),
          ...((await isClusterNode(redis).catch(() => false))
            ? [{ name: "cluster url", run: async () => oneNodeOfCluster(url) }]
            : []),
          ...deploymentChecks(redis, redis, keys, now),
        ];
  const results: DoctorCheck[] = [];
  for (const check of checks) results.push(await runCheck(check));
  return results;
}
