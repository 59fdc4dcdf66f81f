/**
 * How a worker closes (`ErrandWorker.close`), in order: it stops taking jobs
 * and lets the active ones finish within the grace period (pausing keeps
 * renewing their locks); runs still going after it are left to their locks.
 * Then each part closes after what used it: the shards' BullMQ workers and
 * the schedule ticker, the
 * adoption passes and their queues, the heartbeat (its records then say the
 * worker stopped), the cancel subscription, the settled waiter and the parent
 * services, and last the two connections all of these issued their commands
 * on. With Redis unreachable those steps wait for it: past the grace period
 * (at least `CLOSE_ALLOWANCE_MS` after the runs), the connections are cut. A
 * worker with no active run has nothing to drain: it pauses without waiting
 * for Redis and cuts after `IDLE_CLOSE_ALLOWANCE_MS`.
 */
import type { Logger } from "@errand/runtime";
import type { SettledWaiter } from "@errand/store/ops";
import type { OpenParentServices } from "../parents/parent-services.js";
import type { RunQueues } from "../queues/run-queues.js";
import {
  CLOSE_ALLOWANCE_MS,
  closeWithin,
  IDLE_CLOSE_ALLOWANCE_MS,
  runEach,
  settlesWithin,
} from "../redis/closing.js";
import { closeConnection, type RedisConnection } from "../redis/connection.js";
import type { ScheduleTicker } from "../schedules/schedule-ticker.js";
import type { Adoption } from "./adopt-orphans.js";
import type { CancelListener } from "./cancel-listener.js";
import type { Heartbeat } from "./heartbeat.js";
import type { RunWorker } from "./run-worker.js";

/** The parts of a running worker, as they close. */
export interface WorkerParts {
  /** One BullMQ worker a shard taken. */
  workers: readonly RunWorker[];
  /** Its schedule ticker, unless it runs none. */
  ticker: ScheduleTicker | undefined;
  /** How many jobs are active now. */
  activeJobs(): number;
  adoption: Adoption;
  adoptionQueues: RunQueues;
  heartbeat: Heartbeat;
  cancels: CancelListener;
  /** The waiter of the worker's reads (`ReadsContext.waiter`). */
  waiter: SettledWaiter;
  parent: OpenParentServices;
  /** The connection of the runs' commands. */
  redis: RedisConnection;
  /** The connection of the BullMQ workers' and queues' commands. */
  bullConnection: RedisConnection;
  logger: Logger;
}

/** Closes `parts` in the order above, letting active runs go on for up to `graceMs`. */
export async function closeWorkerParts(parts: WorkerParts, graceMs: number): Promise<void> {
  const { workers, redis, bullConnection, logger } = parts;
  const deadline = Date.now() + graceMs;
  // Idle, it has nothing to drain: it stops taking jobs without waiting for Redis (pausing
  // otherwise reconnects its blocking connections, which waits for a Redis that is gone).
  const idle = parts.activeJobs() === 0;
  // Pausing stops taking jobs and resolves once the active ones finished; locks are still renewed meanwhile.
  const finished = await settlesWithin(
    Promise.all(workers.map((worker) => worker.pause(idle))),
    idle ? 0 : graceMs,
  );
  const activeJobs = parts.activeJobs();
  if (!finished && activeJobs > 0) {
    logger.warn(
      { graceMs, activeJobs },
      "runs still active after the grace period: leaving them to their locks",
    );
  }
  // With Redis unreachable the steps below wait for it: past the deadline, its connections are cut.
  await closeWithin({
    close: () =>
      runEach([
        () => Promise.all([...workers.map((worker) => worker.close(true)), parts.ticker?.close()]),
        () => parts.adoption.stop(),
        () => parts.adoptionQueues.close(),
        () => parts.heartbeat.stop(),
        () => Promise.all([parts.cancels.close(), parts.waiter.close(), parts.parent.close()]),
        () => Promise.all([closeConnection(redis), closeConnection(bullConnection)]),
      ]),
    withinMs: idle ? IDLE_CLOSE_ALLOWANCE_MS : Math.max(deadline - Date.now(), CLOSE_ALLOWANCE_MS),
    cut() {
      redis.disconnect();
      bullConnection.disconnect();
    },
    logger,
  });
  logger.info({}, "worker closed");
}
