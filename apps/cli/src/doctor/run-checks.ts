/**
 * Runs every doctor check in order against one Redis. A check that throws
 * (a command the server refuses, say) becomes a problem of its own instead of
 * ending the report.
 */
import { type EngineKeys, readQueueRegistrations } from "@errand/engine";
import type { Redis } from "ioredis";
import { describeError } from "../output.js";
import { type DoctorCheck, problem } from "./check.js";
import { checkCoLocation } from "./co-location.js";
import { checkCollectors, checkWorkers } from "./deployment-checks.js";
import { checkMemory, checkWrites } from "./memory-checks.js";
import { checkWaitingRuns } from "./queue-checks.js";
import { checkEvictionPolicy, checkPersistence, checkVersion } from "./server-checks.js";

/** One named check, to run against a reachable Redis. */
interface NamedCheck {
  name: string;
  run(): Promise<DoctorCheck>;
}

async function runCheck(check: NamedCheck): Promise<DoctorCheck> {
  try {
    return await check.run();
  } catch (error) {
    return problem(
      check.name,
      `could not check: ${describeError(error)}`,
      "make sure this connection's user may run INFO, CLUSTER and XINFO (the ACL errand doctor --acl prints allows them)",
    );
  }
}

/** Every check after reachability, in the order the report lists them. */
export async function runServerChecks(
  redis: Redis,
  keys: EngineKeys,
  now: Date,
): Promise<DoctorCheck[]> {
  const checks: NamedCheck[] = [
    { name: "redis version", run: () => checkVersion(redis) },
    { name: "maxmemory-policy", run: () => checkEvictionPolicy(redis) },
    { name: "memory", run: () => checkMemory(redis) },
    { name: "writes", run: () => checkWrites(redis, keys) },
    { name: "persistence", run: () => checkPersistence(redis) },
    {
      name: "cluster hash-tag co-location",
      run: async () => {
        const queues = (await readQueueRegistrations(redis, keys)).map(({ queue }) => queue);
        return checkCoLocation(redis, keys, queues);
      },
    },
    { name: "worker heartbeats", run: () => checkWorkers(redis, keys, now) },
    { name: "runs waiting for a worker", run: () => checkWaitingRuns(redis, keys, now) },
    { name: "collectors", run: () => checkCollectors(redis, keys) },
  ];
  const results: DoctorCheck[] = [];
  for (const check of checks) results.push(await runCheck(check));
  return results;
}
