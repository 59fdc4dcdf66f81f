/**
 * Parking (docs/architecture/tool-results.md#parents): a tool that waits for other runs (`collect_agents`
 * with `wait`) throws a `ParkRequest`; the step so far is in the log and the
 * run's job leaves the worker, freeing its slot. The job is delayed by
 * `parkRecheckMs` and promoted early once EVERY awaited run has a stored
 * result — the same reads `collect` answers from, so a woken run never finds
 * the runs it waited for still pending because the collector lagged. The
 * worker that parked the run listens for the collector's announcements on
 * the settled channels and looks again at just the runs announced; the
 * delay is the safety net when that worker dies first. One waiter listens
 * for a parked job on a worker, across its re-checks (up to
 * {@link PARKED_WAITER_MS}): a re-check that parks the job again on the
 * worker already listening for it reads nothing more, so a parent's wait
 * reads each awaited run about once, however many re-checks it takes
 * (docs/architecture/tool-results.md#fan-out-at-a-flat-cost-per-child). A run parked for its
 * children set (more pending than a park lists) is waited for a slice of
 * its children at a time, newest first, so the waiter holds one slice. The run then resumes
 * from its log and the parking tool runs again. Parking waits out a Redis
 * out of memory (the worker holds the job until the move goes through), so
 * that a shortage never costs the job one of its attempts. A run parked on a
 * waitpoint is delayed until its timeout at most, listed as waiting for an
 * answer, and promoted by whoever answers it (`complete`); should the answer
 * land between the worker's read and its move, the worker, reading the log
 * again after the move, promotes the job itself.
 *
 * The delayed job tells the truth to queue UIs: its `delay` is counted from
 * the job's creation (BullMQ's `timestamp`), as UIs read it, so "will run at"
 * (`timestamp + delay`) is the next re-check, never a time already past; its
 * hash field {@link PARKED_UNTIL_FIELD} holds the same instant, which tells a
 * parked job from one delayed by a retry's backoff (see `readQueueDepth`).
 */
import { foldRun } from "@errand/core";
import { isRunId, isWaitpointOverdue, waitpointOf } from "@errand/core/ops";
import type { Logger } from "@errand/runtime";
import { type AnnouncedResults, pendingRunIds } from "@errand/store/ops";
import { DelayedError, type Job, type Scripts } from "bullmq";
import { newestPendingChildren } from "../parents/pending-children.js";
import type { ReadsContext } from "../reads/context.js";
import { addWaiting } from "../waitpoints/waiting-index.js";
import { delayHeldJob } from "./delay-job.js";
import type { ParkedWaitpoint } from "./process-outcome.js";

/** How long a parked run's job waits, at most, before it is tried again: 30 s. */
export const DEFAULT_PARK_RECHECK_MS = 30_000;

/**
 * How long a parked job's waiter listens at most, an hour (or the re-check
 * delay, when that is longer): past it, the job's next re-check on this
 * worker starts another, which reads every awaited run once more.
 */
const PARKED_WAITER_MS = 3_600_000;

/**
 * The field of a job's hash that a park sets to the re-check time (ms since
 * the epoch); the job is parked while it is delayed until that time.
 */
export const PARKED_UNTIL_FIELD = "errandParkedUntil";

/** Parks jobs and wakes them. */
export interface ParkedRuns {
  /**
   * Delays `job` (held with `token`, moved by `scripts`: its worker's) and
   * rejects with BullMQ's `DelayedError`, which tells BullMQ the job was moved
   * rather than finished; wakes it once every run of `waitFor` has settled,
   * or once none of the run's children is pending (`waitForChildren`), or
   * once `waitpoint` closed (at its timeout at the latest).
   */
  park(
    job: Job,
    token: string | undefined,
    parked: { waitFor: readonly string[]; waitForChildren?: boolean; waitpoint?: ParkedWaitpoint },
    scripts: Scripts,
  ): Promise<never>;
}

/** What {@link createParkedRuns} needs. */
export interface ParkedRunsOptions {
  /** The worker's reads: stored results and the settled channels' waiter. */
  reads: ReadsContext;
  logger: Logger;
  recheckMs: number;
}

/** Parked runs of one worker. */
export function createParkedRuns(options: ParkedRunsOptions): ParkedRuns {
  const { reads, logger, recheckMs } = options;
  /** The parked jobs a waiter listens for now, by {@link waiterKey}. */
  const listening = new Set<string>();

  /** A waiter's key: the job and the runs it waits for (how many, the first, the last). */
  function waiterKey(job: Job, runIds: readonly string[]): string {
    return `${job.id}\n${runIds.length}\n${runIds[0]}\n${runIds.at(-1)}`;
  }

  /** How long a waiter listens, at most. */
  const waitMs = Math.max(recheckMs, PARKED_WAITER_MS);

  /**
   * Resolves true once none of `runIds` is pending, false when `untilMs`
   * (ms since the epoch) passed first or the worker closes.
   */
  async function settledBy(runIds: readonly string[], untilMs: number): Promise<boolean> {
    const pending = new Set(runIds);
    const lookAgain = async (announced?: AnnouncedResults): Promise<boolean> => {
      // A read after announcements looks at just those runs whose results they did not
      // carry, at a cost that does not grow with the runs still pending; any other read
      // at every pending run.
      for (const [runId, result] of announced ?? []) if (result) pending.delete(runId);
      const look =
        announced === undefined
          ? [...pending]
          : [...announced.keys()].filter((runId) => pending.has(runId));
      const stillPending = new Set(await pendingRunIds(reads, look));
      for (const runId of look) if (!stillPending.has(runId)) pending.delete(runId);
      return pending.size === 0;
    };
    const leftMs = untilMs - Date.now();
    return leftMs > 0 && (await reads.waiter.waitUntil(runIds, leftMs, lookAgain, (done) => done));
  }

  /** Promotes the job unless it left the delayed jobs meanwhile (taken early, or by its delay). */
  async function promote(job: Job, waitedFor: number | "children"): Promise<void> {
    if ((await job.getState()) !== "delayed") return;
    await job.promote();
    logger.info({ runId: job.id, waitedFor }, "parked run woken");
  }

  /** Promotes the job once none of `runIds` is pending; gives up after {@link PARKED_WAITER_MS}, or as the worker closes. */
  async function wakeWhenSettled(job: Job, runIds: readonly string[]): Promise<void> {
    logger.debug({ runId: job.id, waitFor: runIds.length }, "listening for a parked run's runs");
    if (await settledBy(runIds, Date.now() + waitMs)) await promote(job, runIds.length);
  }

  /**
   * Promotes the job once none of its run's children is pending, holding a
   * slice of them at a time: it waits for the pending children of the
   * newest slice with any (`newestPendingChildren`), then looks at the
   * children before that slice, until none is pending. Gives up as
   * {@link wakeWhenSettled} does.
   */
  async function wakeWhenChildrenSettled(job: Job): Promise<void> {
    const parentRunId = job.id ?? "";
    const untilMs = Date.now() + waitMs;
    logger.debug({ runId: parentRunId }, "listening for a parked run's children");
    let end: number | undefined;
    for (;;) {
      const { pending, from } = await newestPendingChildren(reads, parentRunId, end);
      if (pending.length === 0) break;
      if (!(await settledBy(pending, untilMs))) return; // the delay brings it back
      end = from;
    }
    await promote(job, "children");
  }

  /** Runs `wake` unless a waiter listens for `key` already; logs why it failed, if it does. */
  function listenOnce(job: Job, key: string, wake: () => Promise<void>): void {
    if (listening.has(key)) return;
    listening.add(key);
    wake()
      .catch((error: unknown) =>
        logger.warn({ runId: job.id, error: String(error) }, "could not wake a parked run"),
      )
      .finally(() => listening.delete(key));
  }

  /**
   * Lists the waitpoint as waiting for an answer and, if it was answered (or
   * timed out) before the job was delayed, promotes the job.
   */
  async function wakeIfAnswered(job: Job, token: string): Promise<void> {
    const runId = job.id ?? "";
    const state = foldRun(await reads.store.readLog(runId), runId);
    const waitpoint = waitpointOf(state, token);
    if (waitpoint?.status === "waiting" && !isWaitpointOverdue(waitpoint, reads.now())) {
      await addWaiting(reads, token, Date.parse(waitpoint.createdAt));
      logger.info({ runId, waitpoint: token }, "run parked on a waitpoint");
      return;
    }
    if ((await job.getState()) === "delayed") await job.promote();
  }

  return {
    async park(job, token, { waitFor, waitForChildren, waitpoint }, scripts) {
      const until = Math.min(
        Date.now() + recheckMs,
        waitpoint?.timeoutAtMs ?? Number.POSITIVE_INFINITY,
      );
      await delayHeldJob({
        job,
        token,
        until,
        scripts,
        logger,
        write: "delay of the parked run's job",
        fieldsToUpdate: { [PARKED_UNTIL_FIELD]: until },
      });
      if (waitpoint !== undefined) {
        await wakeIfAnswered(job, waitpoint.token);
        throw new DelayedError();
      }
      if (waitForChildren) {
        logger.info({ runId: job.id, waitFor: "children" }, "run parked");
        listenOnce(job, `${job.id}\nchildren`, () => wakeWhenChildrenSettled(job));
        throw new DelayedError();
      }
      const runIds = waitFor.filter(isRunId);
      logger.info({ runId: job.id, waitFor: runIds.length }, "run parked");
      if (runIds.length > 0)
        listenOnce(job, waiterKey(job, runIds), () => wakeWhenSettled(job, runIds));
      throw new DelayedError();
    },
  };
}
