/**
 * Finding the BullMQ job of a run. A run's job is in the queue of one of the
 * worker sets that serve its agent (the registry lists them), on the shard
 * of that queue its runId falls in (`queue-shards.ts`); its job id is its runId. Cancel and the reaper remove the job of a run they settle while
 * no worker holds it, so that no worker picks it up afterwards; answering a
 * waitpoint promotes the delayed job of the run parked on it.
 */
import type { Queue } from "bullmq";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import { readAgentRegistrations } from "./registry.js";

/** Job states in which no worker holds the job: it may be removed. */
const WAITING_STATES = new Set(["waiting", "delayed", "prioritized", "waiting-children"]);
/** Job states after which no worker picks the job up again. */
const DONE_STATES = new Set(["completed", "failed"]);

/** What became of a run's job: removed from its queue, held by a worker, or not in any queue. */
export type UnheldJobRemoval = "removed" | "held" | "gone";

/** Where removing looks: the registry, and the queues by name. */
export interface RunJobLookup {
  redis: RedisConnection;
  keys: EngineKeys;
  /** The BullMQ queue (shard) of queue `name` that holds run `runId`'s job, opened (or reused) by the caller. */
  ofRun(name: string, runId: string): Queue;
}

/**
 * Whether `queue` holds a job of run `runId`, in any state: its job's hash
 * exists (read on `redis`, the queue's server) — one `EXISTS`, where BullMQ's `getJobState` looks the job up in
 * the waiting list itself (`LPOS`), a cost that grows with the jobs waiting
 * (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child).
 */
export async function hasRunJob(
  redis: RedisConnection,
  queue: Queue,
  runId: string,
): Promise<boolean> {
  return (await redis.exists(queue.toKey(runId))) === 1;
}

/**
 * Removes the job of run `runId` (of agent `agent`) when no worker holds it:
 * `removed` when it was waiting (or delayed) and is gone now, `held` when a
 * worker has it (or took it meanwhile), `gone` when no queue of the agent has
 * it any more (it finished, or was never enqueued).
 */
export async function removeUnheldJob(
  lookup: RunJobLookup,
  runId: string,
  agent: string,
): Promise<UnheldJobRemoval> {
  const registrations = await readAgentRegistrations(lookup.redis, lookup.keys, agent);
  for (const { queue: name } of registrations) {
    const queue = lookup.ofRun(name, runId);
    const state = await queue.getJobState(runId);
    if (state === "unknown") continue;
    if (DONE_STATES.has(state)) return "gone";
    if (!WAITING_STATES.has(state)) return "held";
    return (await queue.remove(runId)) === 0 ? "held" : "removed";
  }
  return "gone";
}

/**
 * Promotes the delayed (parked) job of run `runId` (of agent `agent`) in
 * whichever queue of the agent holds it, so that a worker takes it now.
 * Resolves `true` when a job was promoted, `false` when none was delayed (a
 * worker holds it, or it is gone): its worker reads the log again anyway.
 */
export async function promoteParkedJob(
  lookup: RunJobLookup,
  runId: string,
  agent: string,
): Promise<boolean> {
  const registrations = await readAgentRegistrations(lookup.redis, lookup.keys, agent);
  let promoted = false;
  for (const { queue: name } of registrations) {
    const job = await lookup.ofRun(name, runId).getJob(runId);
    if (job === undefined || (await job.getState()) !== "delayed") continue;
    try {
      await job.promote();
      promoted = true;
    } catch {
      // Taken meanwhile (no longer delayed): its worker reads the log.
    }
  }
  return promoted;
}
