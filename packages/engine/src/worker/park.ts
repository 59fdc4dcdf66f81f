/**
 * Parking (DESIGN §5): a tool that waits for other runs (`collect_agents`
 * with `wait`) throws a `ParkRequest`; the step so far is in the log and the
 * run's job leaves the worker, freeing its slot. The job is delayed by
 * `parkRecheckMs` and promoted early as soon as one of the awaited runs is
 * announced settled on its shard's settled channel; the run then resumes
 * from its log (a new attempt) and the parking tool runs again.
 */
import { isRunId } from "@errand/core";
import type { EventStore } from "@errand/store";
import { DelayedError, type Job } from "bullmq";
import type { Logger } from "pino";
import type { ConnectionInput } from "../connection.js";
import type { EngineKeys } from "../engine-keys.js";
import { createSettledWaiter } from "../reads/settled-waiter.js";

/** How long a parked run's job waits, at most, before it is tried again: 30 s. */
export const DEFAULT_PARK_RECHECK_MS = 30_000;

/** Parks jobs and wakes them. */
export interface ParkedRuns {
  /**
   * Delays `job` (held with `token`) and rejects with BullMQ's `DelayedError`,
   * which tells BullMQ the job was moved rather than finished; wakes it when
   * one of `waitFor` settles.
   */
  park(job: Job, token: string | undefined, waitFor: readonly string[]): Promise<never>;
  /** Stops waking parked jobs (their delays still bring them back). */
  close(): Promise<void>;
}

/** What {@link createParkedRuns} needs. */
export interface ParkedRunsOptions {
  connection: ConnectionInput;
  keys: EngineKeys;
  store: EventStore;
  logger: Logger;
  recheckMs: number;
}

/** Parked runs of one worker; its subscriber connection opens on the first park. */
export function createParkedRuns(options: ParkedRunsOptions): ParkedRuns {
  const { store, logger, recheckMs } = options;
  const waiter = createSettledWaiter(options.connection, options.keys);
  const settledCount = async (runIds: readonly string[]) => {
    const heads = await Promise.all(runIds.map((runId) => store.readHead(runId)));
    return heads.filter((head) => head === undefined || head.settledAt !== undefined).length;
  };

  /** Promotes the job once another awaited run settles (or all have), or the delay is up. */
  async function wakeWhenSettled(job: Job, runIds: readonly string[]): Promise<void> {
    const before = await settledCount(runIds);
    const settled = await waiter.waitUntil(
      runIds,
      recheckMs,
      () => settledCount(runIds),
      (count) => count > before || count === runIds.length,
    );
    if (settled === before && settled < runIds.length) return; // the delay brings it back
    if ((await job.getState()) === "delayed") await job.promote();
  }

  return {
    async park(job, token, waitFor) {
      await job.moveToDelayed(Date.now() + recheckMs, token);
      const runIds = waitFor.filter(isRunId);
      logger.info({ runId: job.id, waitFor: runIds.length }, "run parked");
      if (runIds.length > 0) {
        wakeWhenSettled(job, runIds).catch((error: unknown) =>
          logger.warn({ runId: job.id, error: String(error) }, "could not wake a parked run"),
        );
      }
      throw new DelayedError();
    },
    close: () => waiter.close(),
  };
}
