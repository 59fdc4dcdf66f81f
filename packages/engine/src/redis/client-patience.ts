/**
 * The patience of every client call: how long `fire`, the reads, `cancel`,
 * the waitpoint calls, `events` and `stream` wait out a Redis that cannot
 * answer now (see `transient-redis.ts`: a Redis Cluster failing over, a
 * server loading or unable to persist, a lost or never-made connection, a
 * server that froze)
 * before they answer with the error. One mechanism for all of them:
 * {@link clientPatience} makes, once per client, the function every call
 * goes through.
 */
import type { Logger } from "@errand/runtime";
import type { ConnectionInput } from "./connection.js";
import { redisTarget } from "./redis-target.js";
import {
  isTransientRedisError,
  type RedisTrouble,
  retryWhileRedisIsTransient,
} from "./transient-redis.js";

/**
 * How long a client call waits out a Redis Cluster moving, a server loading
 * or a lost connection before it throws `redis_unavailable`, in ms; a call
 * that waits (`result` or `collect` with `waitMs`) waits as long past its
 * own `waitMs`, and `fire` the run's own `deadlineMs` when shorter.
 * Enqueuing a run whose log is written waits as long before the run is
 * taken back.
 */
export const CLIENT_PATIENCE_MS = 30_000;

/**
 * What client calls wait out: every transient Redis error but a lack of
 * memory, which an operator must end. A Redis refusing writes because it
 * cannot persist (`MISCONF`) needs an operator too, but a spell of it (a
 * disk briefly full) is waited out, so that a run whose log is written is
 * still enqueued: Redis then refuses deletes as well, so it could not be
 * taken back either.
 */
export const CLIENT_WAITS_OUT: readonly RedisTrouble[] = [
  "refusing-writes",
  "cluster-moving",
  "loading",
  "connection-lost",
];

/**
 * Runs a call patiently: `call` is tried, and tried again while Redis cannot
 * answer, until it answers or {@link CLIENT_PATIENCE_MS} (past `waitMs`)
 * passed; then it throws `redis_unavailable` (retryable) naming the Redis
 * (redacted) and the fix. A try Redis never answers is given up then too,
 * unless the call is `blocking`. `what` names the call on the log lines and
 * in the error (`read of a run's result`). A call that waits is given
 * `waitMs` as asked on its first try, and on each try after a fault what is
 * left of it (0 once it passed): it keeps its own deadline. `call` must be
 * safe to repeat.
 */
export type Patiently = <T>(
  what: string,
  call: (waitMs: number | undefined) => Promise<T>,
  options?: PatientCallOptions,
) => Promise<T>;

/** How a call waits, besides its patience. */
interface PatientCallOptions {
  /** How long the call itself waits (`result`'s and `collect`'s `waitMs`), as the caller gave it. */
  waitMs?: number | undefined;
  /**
   * The call may block for long while Redis answers (the first step of a
   * followed log): only its errors are waited out.
   */
  blocking?: boolean;
}

/** The waited time `waitMs` asks for: 0 for none, or for a value the call itself refuses. */
function waitedMs(waitMs: number | undefined): number {
  return typeof waitMs === "number" && Number.isSafeInteger(waitMs) && waitMs > 0 ? waitMs : 0;
}

/** The {@link Patiently} of a client on `connection`, logging to `logger`. */
export function clientPatience(logger: Logger, connection: ConnectionInput): Patiently {
  const target = redisTarget(connection);
  return (what, call, { waitMs, blocking = false } = {}) => {
    const waited = waitedMs(waitMs);
    const deadline = Date.now() + waited;
    let tries = 0;
    return retryWhileRedisIsTransient(
      () => call(tries++ === 0 ? waitMs : Math.max(0, deadline - Date.now())),
      {
        logger,
        write: what,
        target,
        patienceMs: waited + CLIENT_PATIENCE_MS,
        blocking,
        troubles: CLIENT_WAITS_OUT,
      },
    );
  };
}

/**
 * What `open` yields, patiently (`events`, `stream`): opening it and, after
 * a fault under it, opening it again from the last item yielded (`open` is
 * given that item, `undefined` at first) are waited out by `patiently`; what
 * it yields is never yielded twice. Its own errors other than a transient
 * Redis error end it.
 */
export async function* patientIteration<T>(
  patiently: Patiently,
  what: string,
  open: (last: T | undefined) => AsyncIterator<T>,
): AsyncGenerator<T, void, undefined> {
  let last: T | undefined;
  let iterator: AsyncIterator<T> | undefined;
  const reopen = () =>
    patiently(
      what,
      () => {
        iterator = open(last);
        return iterator.next();
      },
      { blocking: true },
    );
  try {
    let step = await reopen();
    while (!step.done) {
      last = step.value;
      yield step.value;
      try {
        step = await iterator!.next();
      } catch (error) {
        if (!isTransientRedisError(error)) throw error;
        step = await reopen();
      }
    }
  } finally {
    await iterator?.return?.();
  }
}
