/**
 * The BullMQ job locks of a worker's runs, and how soon a dead worker's runs
 * run again elsewhere (docs/architecture/worker.md#job-locks, docs/architecture/defaults.md). A worker holds a lock on
 * each job it runs, of `lockDuration`; BullMQ renews it in practice every
 * quarter of that (a timer every `lockDuration / 4` renews the locks older
 * than that), and each renewal takes the job out of its queue's stalled set.
 * Every `stalledInterval` one worker of the queue moves the jobs of that set
 * whose lock is gone back to waiting (a worker of the queue takes one at
 * once), then puts every active job in the set. A killed worker's locks lapse
 * ¾ to all of `lockDuration` after its death, and the next check hands its
 * jobs on: its runs run again `0.75 × lockDuration` to
 * `lockDuration + stalledInterval` after it, 3.75 to 7.5 s with the defaults.
 */
import { wholeNumberOption } from "@errand/core/ops";

/**
 * How long a job's lock lasts without renewal, when not told: 5 s. Shorter
 * means a dead worker's runs move on sooner, and a worker whose event loop
 * is blocked for longer than this loses its runs to another (its late
 * appends are refused by the log's fence).
 */
export const DEFAULT_LOCK_DURATION_MS = 5_000;

/** How often a queue's workers look for jobs whose lock lapsed, when not told: every 2.5 s. */
export const DEFAULT_STALLED_INTERVAL_MS = 2_500;

/**
 * How many times a job may lose its lock before BullMQ fails it for good
 * (and the reaper settles its run `worker_lost`), when not told: 10. BullMQ
 * counts every loss of a job's lifetime (a killed or stopped worker, a
 * deploy that outlasts its grace period, an event loop blocked past the
 * lock, every run of a worker that another run crashed) and never resets
 * the count, while the run resumes from its log each time; the limit only
 * ends a run that kills every worker that takes it.
 */
export const DEFAULT_MAX_STALLED_COUNT = 10;

/** The job-lock settings of a worker, in BullMQ's names. */
export interface JobLockSettings {
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
}

/**
 * The settings of `options`, each defaulted. Throws `invalid_spec` for a
 * duration that is not a whole number of ms ≥ 1, or a count < 0.
 */
export function resolveJobLocks(options: Partial<JobLockSettings>): JobLockSettings {
  return {
    lockDuration: wholeNumberOption(
      "lockDuration",
      options.lockDuration,
      DEFAULT_LOCK_DURATION_MS,
      1,
    ),
    stalledInterval: wholeNumberOption(
      "stalledInterval",
      options.stalledInterval,
      DEFAULT_STALLED_INTERVAL_MS,
      1,
    ),
    maxStalledCount: wholeNumberOption(
      "maxStalledCount",
      options.maxStalledCount,
      DEFAULT_MAX_STALLED_COUNT,
      0,
    ),
  };
}
