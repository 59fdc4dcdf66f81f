/**
 * How soon a dead worker's runs move on to another: `--lock-ms` (else
 * `ERRAND_LOCK_MS`, else the engine's default, 5,000) is its job locks'
 * duration (BullMQ `lockDuration`, renewed every quarter of it), and
 * `--stalled-interval-ms` (else `ERRAND_STALLED_INTERVAL_MS`, else 2,500) how
 * often the queue's workers look for jobs whose lock lapsed (BullMQ
 * `stalledInterval`). A SIGKILLed worker's runs run again ¾ of the lock to
 * the lock plus the interval after its death (docs/architecture/worker.md#job-locks).
 */
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS } from "@errand/engine";
import { type ParsedArgs, wholeNumberOption } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import type { CliIO } from "./io.js";

/** The variable read when `--lock-ms` is not given. */
const LOCK_MS_VARIABLE = "ERRAND_LOCK_MS";

/** The variable read when `--stalled-interval-ms` is not given. */
const STALLED_INTERVAL_MS_VARIABLE = "ERRAND_STALLED_INTERVAL_MS";

/**
 * The shortest lock taken: below a second, a garbage collection or a busy
 * event loop outlasts it and the worker loses its runs to another.
 */
const MIN_LOCK_MS = 1_000;

/** The shortest stalled interval taken: each check is a Redis script over the queue's active jobs. */
const MIN_STALLED_INTERVAL_MS = 100;

/** The longest of either: an hour. */
const MAX_MS = 3_600_000;

/** `--lock-ms` and `--stalled-interval-ms`, for the commands that run a worker. */
export const JOB_LOCK_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "lock-ms": {
    type: "string",
    value: "<ms>",
    description: `how long a run's job lock lasts unrenewed (BullMQ lockDuration, renewed every quarter of it), ${MIN_LOCK_MS} … ${MAX_MS}: a killed worker's runs move on ¾ of it to it plus --stalled-interval-ms after its death; keep it above the longest the worker's event loop may block, or a busy worker loses its runs (default: ${LOCK_MS_VARIABLE}, else ${DEFAULT_LOCK_DURATION_MS})`,
  },
  "stalled-interval-ms": {
    type: "string",
    value: "<ms>",
    description: `how often the queue's workers look for runs whose lock lapsed (BullMQ stalledInterval), ${MIN_STALLED_INTERVAL_MS} … ${MAX_MS}; shorter means a killed worker's runs move on sooner after its lock lapses (default: ${STALLED_INTERVAL_MS_VARIABLE}, else ${DEFAULT_STALLED_INTERVAL_MS})`,
  },
};

/** `{ lockDuration, stalledInterval }` as given, else `{}`: spread it into the worker's options. */
export function jobLockOption(
  args: ParsedArgs,
  io: CliIO,
): { lockDuration?: number; stalledInterval?: number } {
  const lockDuration = wholeNumberOption(args, io.env, {
    name: "lock-ms",
    variable: LOCK_MS_VARIABLE,
    min: MIN_LOCK_MS,
    max: MAX_MS,
  });
  const stalledInterval = wholeNumberOption(args, io.env, {
    name: "stalled-interval-ms",
    variable: STALLED_INTERVAL_MS_VARIABLE,
    min: MIN_STALLED_INTERVAL_MS,
    max: MAX_MS,
  });
  return {
    ...(lockDuration === undefined ? {} : { lockDuration }),
    ...(stalledInterval === undefined ? {} : { stalledInterval }),
  };
}
