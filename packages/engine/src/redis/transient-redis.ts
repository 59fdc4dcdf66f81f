/**
 * Transient Redis errors (docs/architecture/redis-errors.md#transient-redis-errors-are-not-outcomes): replies that say Redis
 * cannot do the command *now* but will soon, not that the command is wrong.
 * They are not outcomes: whoever meets one tries again, with backoff, until
 * it passes or its time is up, and only then answers. They are:
 * - `out-of-memory`: Redis at its `maxmemory` refuses writes (see
 *   `out-of-memory.ts`) until memory is freed;
 * - `refusing-writes`: Redis cannot persist (`MISCONF`: its last RDB save
 *   or an AOF write failed, as on a full disk or an unwritable `dir`, and
 *   `stop-writes-on-bgsave-error` is on) and refuses every write, deletes
 *   too, until a save succeeds again;
 * - `cluster-moving`: a Redis Cluster whose slots are moving or not all
 *   served — `CLUSTERDOWN`, `TRYAGAIN`, and ioredis giving up after its own
 *   redirections ("Too many Cluster redirections") or failing to refresh
 *   its slots — as when a master restarts or fails over;
 * - `loading`: a server loading its data after a restart (`LOADING`), a
 *   replica without its master (`MASTERDOWN`), or a restarted server that has
 *   not been sent a script again yet (`NOSCRIPT`: the client sends it again
 *   with the next try);
 * - `connection-lost`: the connection closed or reset under the command.
 * Every one but `connection-lost` means the command was not run; a command
 * cut off by a lost connection may have run, so what is retried must be safe
 * to repeat (errand's appends are fenced on the seq, spawns on their claims,
 * reads change nothing).
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError, isErrandError } from "@errand/core";
import type { Logger } from "@errand/runtime";
import { scheduleDeadline } from "@errand/store/ops";
import { isRedisOutOfMemory, redisOutOfMemory } from "./out-of-memory.js";
import { wasRedisReached } from "./reached-redis.js";

/** Why Redis cannot do a command now; see the module. */
export type RedisTrouble =
  | "out-of-memory"
  | "refusing-writes"
  | "cluster-moving"
  | "loading"
  | "connection-lost";

/** How each trouble other than `out-of-memory` shows in an error's message. */
const TROUBLE_MESSAGES: readonly (readonly [RegExp, RedisTrouble])[] = [
  [/^MISCONF\b/, "refusing-writes"],
  [
    /^(CLUSTERDOWN|TRYAGAIN)\b|Too many Cluster redirections|Failed to refresh slots cache|Cluster isn't ready|None of startup nodes is available/,
    "cluster-moving",
  ],
  [/^(LOADING|MASTERDOWN|NOSCRIPT)\b/, "loading"],
  [
    /^Connection is closed|Stream isn't writeable|Reached the max retries per request limit|\b(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT)\b/,
    "connection-lost",
  ],
];

/** What each trouble means, for messages. */
const TROUBLE_TEXT: Readonly<Record<RedisTrouble, string>> = {
  "out-of-memory": "Redis is out of memory",
  "refusing-writes":
    "Redis refuses writes because it cannot persist (its last RDB save or AOF write failed: MISCONF)",
  "cluster-moving":
    "the Redis Cluster is moving (slots migrating, or a master restarting or failing over)",
  loading: "Redis is loading its data (it just restarted)",
  "connection-lost": "the connection to Redis was lost",
};

/** What each trouble waits for, for the log lines. */
const WAITING_FOR: Readonly<Record<RedisTrouble, { until: string; passed: string }>> = {
  "out-of-memory": { until: "it has room", passed: "Redis has room again" },
  "refusing-writes": { until: "it can persist", passed: "Redis takes writes again" },
  "cluster-moving": { until: "the cluster is whole", passed: "the cluster is whole again" },
  loading: { until: "it has loaded", passed: "Redis has loaded" },
  "connection-lost": { until: "it is back", passed: "Redis is back" },
};

/** How deep {@link redisTroubleOf} follows `cause`. */
const MAX_CAUSE_DEPTH = 5;

/** The first pause between two tries, in ms; it doubles up to {@link MAX_RETRY_DELAY_MS}. */
const FIRST_RETRY_DELAY_MS = 100;

/** The longest pause between two tries, in ms. */
const MAX_RETRY_DELAY_MS = 2_000;

function troubleOfOne(error: Error): RedisTrouble | undefined {
  if (isRedisOutOfMemory(error)) return "out-of-memory";
  if (isErrandError(error, "redis_unavailable")) {
    const trouble = error.details?.trouble;
    if (typeof trouble === "string" && trouble in TROUBLE_TEXT) return trouble as RedisTrouble;
  }
  return TROUBLE_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
}

/**
 * The transient trouble `error` (or an error it was caused by) reports, or
 * `undefined` when it is no transient Redis error (a wrong command, a refused
 * permission, a script's own error, a fenced append refused: retrying those
 * cannot help).
 */
export function redisTroubleOf(error: unknown): RedisTrouble | undefined {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    const trouble = troubleOfOne(current);
    if (trouble !== undefined) return trouble;
    current = current.cause;
  }
  return undefined;
}

/** True when `error` is a transient Redis error (see {@link redisTroubleOf}). */
export function isTransientRedisError(error: unknown): boolean {
  return redisTroubleOf(error) !== undefined;
}

/** What to do about each trouble, once waiting it out took too long. */
const TROUBLE_FIX: Readonly<Record<Exclude<RedisTrouble, "out-of-memory">, string>> = {
  "refusing-writes":
    "free disk space on the Redis host or make its dir writable (its log names the failed save), so its next save succeeds, then try again",
  "cluster-moving":
    "wait for the cluster to be whole (every slot served; redis-cli cluster info says cluster_state:ok) and try again",
  loading: "try again once Redis has loaded its data",
  "connection-lost":
    "make sure Redis runs and is reachable from here at that address (REDIS_URL, or the connection option), then try again",
};

/**
 * What the error of `trouble` says went wrong at `target`: a connection
 * lost to a Redis this process never reached (`reached-redis.ts`) is one
 * that could not be made.
 */
function troubleText(trouble: Exclude<RedisTrouble, "out-of-memory">, target?: string): string {
  if (target === undefined) return TROUBLE_TEXT[trouble];
  if (trouble === "connection-lost" && !wasRedisReached(target)) {
    return `could not connect to Redis at ${target}`;
  }
  return `${TROUBLE_TEXT[trouble]} (Redis at ${target})`;
}

/**
 * The error (retryable) for what a transient Redis error kept from being
 * done: `redis_out_of_memory` for a lack of memory, else `redis_unavailable`
 * naming the trouble (in `details.trouble`; a connection never made is
 * `connection-lost` too, its message saying it could not connect), the
 * Redis (`target`, already redacted, when known) and the fix. `refused`
 * says what was not done, e.g. `the run was not fired`. `cause` must be
 * transient.
 */
export function transientRedisError(refused: string, cause: unknown, target?: string): ErrandError {
  const trouble = redisTroubleOf(cause) ?? "connection-lost";
  if (trouble === "out-of-memory") return redisOutOfMemory(refused, cause);
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ErrandError(
    "redis_unavailable",
    `${troubleText(trouble, target)}, so ${refused} (${message}). Fix: ${TROUBLE_FIX[trouble]}; the call is retryable`,
    { retryable: true, cause, details: { trouble, ...(target === undefined ? {} : { target }) } },
  );
}

/**
 * The error a try still unanswered when the patience ran out is ended with:
 * the connection counts as lost, unless an earlier try met a trouble of its
 * own (see {@link retryAfterFault}).
 */
class UnansweredError extends ErrandError {
  constructor(patienceMs: number) {
    super("redis_unavailable", `Redis did not answer within ${patienceMs} ms`, {
      retryable: true,
      details: { trouble: "connection-lost" },
    });
  }
}

/** Options of {@link retryWhileRedisIsTransient}. */
export interface TransientRetryOptions {
  logger: Logger;
  /** What the write does, for the log lines, e.g. `append to the run's log`. */
  write: string;
  /** Fields added to the log lines, e.g. `{ runId }`. */
  fields?: Record<string, unknown>;
  /** Ends the retries: the last error is then thrown as {@link transientRedisError}. */
  signal?: AbortSignal;
  /**
   * Ends the call this many ms after it began: the retries stop (as a
   * `signal` of `AbortSignal.timeout` made at the call would; that signal is
   * made only when the first transient error comes, since each keeps a
   * timer, a weak reference and a finalization entry alive until a full
   * garbage collection), and a try still unanswered then (a command queued
   * while the connection is down, or sent to a server that froze) is given
   * up: the call never waits past its patience.
   */
  patienceMs?: number;
  /**
   * The write may block for long while Redis answers (a followed log waiting
   * for its next event): with `patienceMs`, only its errors are waited out,
   * and a try is never given up for taking long.
   */
  blocking?: boolean;
  /** The Redis the error names (see `redis-target.ts`), already redacted. */
  target?: string;
  /** The troubles to wait out (default: every one); an error of another is thrown at once. */
  troubles?: readonly RedisTrouble[];
}

/** The pause before try `tries + 1`: doubling from the first delay, capped, with jitter so writers spread out. */
function retryDelayMs(tries: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** (tries - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

/**
 * Runs `write`, and runs it again while it fails with a transient Redis
 * error, pausing 100 ms, then twice as long each time, up to 2 s, until
 * `signal` (if any) aborts or `patienceMs` (if any) passed (only the
 * `troubles` given, when given); with `patienceMs`, a try unanswered by then
 * is given up too. Logs one line when the first such error comes and one
 * when the write goes through. Any other error is thrown at once. `write`
 * must be safe to repeat (see the module).
 */
export function retryWhileRedisIsTransient<T>(
  write: () => Promise<T>,
  options: TransientRetryOptions,
): Promise<T> {
  const { patienceMs } = options;
  if (patienceMs === undefined || options.blocking) return retryTries(write, options);
  return retryWithPatience(write, options, patienceMs);
}

/**
 * {@link retryWhileRedisIsTransient} with a patience: a try unanswered by
 * then is given up, rejected with {@link UnansweredError}, as is each try
 * begun after it unless its write has already answered (as racing the write
 * against a promise rejected at the patience would). One deadline a call on
 * the timer every deadline shares (`shared-deadlines.ts` of the store), and
 * one promise: the call's own, which the first try's answer settles, and
 * which a first try that failed or was given up hands to the retries
 * (their tries, rare, each race the patience in a promise of their own).
 */
function retryWithPatience<T>(
  write: () => Promise<T>,
  options: TransientRetryOptions,
  patienceMs: number,
): Promise<T> {
  const startedAt = Date.now();
  return new Promise<T>((resolve, reject) => {
    /** Whether the first try failed or was given up: its answer after that is ignored. */
    let faulted = false;
    /** Rejected once the patience passed (handled here, so never an unhandled rejection). */
    let expired: Promise<never> | undefined;
    /** The first try's fault: the tries after it, each racing the patience (rare: made only then). */
    const fault = (error: unknown) => {
      if (faulted) return;
      faulted = true;
      const patientTry = (): Promise<T> => {
        const answer = write();
        return new Promise<T>((answered, failed) => {
          giveUp = failed;
          answer.then(answered, failed);
          expired?.then(undefined, failed);
        });
      };
      retryAfterFault(patientTry, options, error, startedAt).then(
        (value) => {
          deadline.cancel();
          resolve(value);
        },
        (finalError: unknown) => {
          deadline.cancel();
          reject(finalError);
        },
      );
    };
    /** Ends the try in flight as given up; replaced by each try after the first. */
    let giveUp: (error: unknown) => void = fault;
    const deadline = scheduleDeadline(patienceMs, () => {
      const error = new UnansweredError(patienceMs);
      expired = Promise.reject(error);
      expired.catch(() => undefined);
      giveUp(error);
    });
    let answer: Promise<T>;
    try {
      answer = write();
    } catch (error) {
      fault(error);
      return;
    }
    answer.then((value) => {
      if (faulted) return;
      deadline.cancel();
      resolve(value);
    }, fault);
  });
}

/**
 * The tries of {@link retryWhileRedisIsTransient}: `write` until it goes
 * through, or the error. A first try that goes through, as nearly all do,
 * costs one `catch`: the retries are entered only once it failed.
 */
function retryTries<T>(write: () => Promise<T>, options: TransientRetryOptions): Promise<T> {
  const startedAt = Date.now();
  return firstTry(write).catch((error: unknown) =>
    retryAfterFault(write, options, error, startedAt),
  );
}

/** `write()`, with a synchronous throw made a rejection. */
function firstTry<T>(write: () => Promise<T>): Promise<T> {
  try {
    return write();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The trouble of `error` when `options` waits it out; otherwise `error` is thrown. */
function troubleWaitedOut(error: unknown, options: TransientRetryOptions): RedisTrouble {
  const trouble = redisTroubleOf(error);
  if (trouble === undefined || !(options.troubles?.includes(trouble) ?? true)) throw error;
  return trouble;
}

/** The tries after the first, begun at `startedAt`, failed with `firstError`. */
async function retryAfterFault<T>(
  write: () => Promise<T>,
  options: TransientRetryOptions,
  firstError: unknown,
  startedAt: number,
): Promise<T> {
  const { logger, fields = {}, patienceMs, target } = options;
  const first = troubleWaitedOut(firstError, options);
  let { signal } = options;
  if (signal === undefined && patienceMs !== undefined) {
    signal = AbortSignal.timeout(Math.max(0, startedAt + patienceMs - Date.now()));
  }
  logger.warn(
    { ...fields, write: options.write, trouble: first, err: firstError },
    `${TROUBLE_TEXT[first]}: retrying the write until ${WAITING_FOR[first].until}`,
  );
  let error = firstError;
  for (let tries = 1; ; tries++) {
    if (!signal?.aborted) {
      await delay(retryDelayMs(tries), undefined, signal ? { signal } : {}).catch(() => undefined);
    }
    // Not one more try once aborted: against a Redis that is gone, it would wait for good.
    if (signal?.aborted) {
      throw transientRedisError(`the ${options.write} was given up`, error, target);
    }
    try {
      const result = await write();
      logger.info(
        { ...fields, write: options.write, tries: tries + 1, waitedMs: Date.now() - startedAt },
        `${WAITING_FOR[first].passed}: the write went through`,
      );
      return result;
    } catch (next) {
      troubleWaitedOut(next, options);
      // A try given up at the patience tells nothing new: the trouble that
      // kept the write waiting (say, Redis refusing writes) is still the one to name.
      if (!(next instanceof UnansweredError)) error = next;
    }
  }
}
