/**
 * The fleet of a resume test: a private Redis, a client, and worker
 * processes (`reasoning-worker.ts`, told which fake server to ask by
 * `serverEnv`) with short job locks, so a worker SIGKILLed mid-run is
 * replaced quickly; and a run's log read until it settles.
 */
import { fileURLToPath } from "node:url";
import { isTerminalEventType, type RunEvent } from "@errand/core";
import { createErrand, type Errand } from "@errand/engine";
import { startRedis, uniqueKeyPrefix } from "@errand/testing";
import { type ChaosProcess, startChaosProcess } from "../chaos/chaos-process.js";

const WORKER = fileURLToPath(new URL("./reasoning-worker.ts", import.meta.url));

/** A running fleet. */
export interface ResumeFleet {
  errand: Errand;
  /** Starts a worker process, resolving once it is ready to take runs. */
  startWorker(workerId: string): Promise<ChaosProcess>;
  /** The log of run `runId`, read until it settles. */
  settledLog(runId: string): Promise<RunEvent[]>;
  /** Kills the workers, closes the client and stops Redis. */
  close(): Promise<void>;
}

/** Starts the Redis and the client of a fleet whose workers ask the server `serverEnv` names. */
export async function startResumeFleet(
  name: string,
  serverEnv: Record<string, string>,
): Promise<ResumeFleet> {
  const redis = await startRedis({ maxmemoryPolicy: "noeviction" });
  const prefix = uniqueKeyPrefix(name);
  const errand = createErrand({ connection: redis.url, prefix });
  const workers: ChaosProcess[] = [];
  return {
    errand,
    startWorker(workerId) {
      const worker = startChaosProcess(workerId, WORKER, {
        REDIS_URL: redis.url,
        ERRAND_PREFIX: prefix,
        WORKER_ID: workerId,
        ...serverEnv,
        LOCK_DURATION_MS: "1000",
        STALLED_INTERVAL_MS: "500",
      });
      workers.push(worker);
      return worker.waitForMessage("worker ready").then(() => worker);
    },
    async settledLog(runId) {
      const events: RunEvent[] = [];
      for await (const event of errand.events(runId, { follow: true })) {
        events.push(event);
        if (isTerminalEventType(event.type)) return events;
      }
      throw new Error(`run ${runId} ended without settling`);
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.signal("SIGKILL")));
      await errand.close();
      await redis.stop();
    },
  };
}
