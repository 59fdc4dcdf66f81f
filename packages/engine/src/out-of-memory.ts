/**
 * Redis out of memory (docs/architecture.md §7, §8). A Redis at its
 * `maxmemory` with the `noeviction` policy errand needs refuses every command
 * that may grow memory — SET, XADD, ZADD, HSET, INCR, and a script's first
 * such write, so a refused append or BullMQ script writes nothing — and keeps
 * answering reads and deletes. It is a passing state: once memory is freed or
 * `maxmemory` raised, the same write goes through. So a write refused for it
 * is retried, with backoff, by whoever cannot give up (a worker holding a run,
 * the collector, the reaper), and reported as `redis_out_of_memory`
 * (retryable) to whoever can retry later (a producer's `fire`).
 */
import { setTimeout as delay } from "node:timers/promises";
import { ErrandError, isErrandError } from "@errand/core";
import type { Logger } from "@errand/runtime";

/** How Redis words the refusal: `OOM command not allowed when used memory > 'maxmemory'.` */
const OUT_OF_MEMORY_REPLY = /^OOM /;

/** How deep {@link isRedisOutOfMemory} follows `cause`. */
const MAX_CAUSE_DEPTH = 5;

/** The first pause between two tries of a refused write, in ms; it doubles up to {@link MAX_RETRY_DELAY_MS}. */
const FIRST_RETRY_DELAY_MS = 100;

/** The longest pause between two tries of a refused write, in ms. */
const MAX_RETRY_DELAY_MS = 2_000;

/**
 * True when `error` (or an error it was caused by) is Redis refusing a write
 * because it is out of memory: its `OOM` reply, or a `redis_out_of_memory`.
 */
export function isRedisOutOfMemory(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (isErrandError(current, "redis_out_of_memory")) return true;
    if (OUT_OF_MEMORY_REPLY.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * The `redis_out_of_memory` error (retryable) for a write Redis refused:
 * `refused` says what was not done, e.g. `the run was not fired`.
 */
export function redisOutOfMemory(refused: string, cause: unknown): ErrandError {
  return new ErrandError(
    "redis_out_of_memory",
    `Redis is out of memory and refuses writes (its used memory is above maxmemory, and its policy evicts nothing), so ${refused}. Try again once it has room: raise its maxmemory, or free memory (a shorter retention keeps fewer settled runs)`,
    { retryable: true, cause },
  );
}

/** Options of {@link retryWhileOutOfMemory}. */
export interface OutOfMemoryRetryOptions {
  logger: Logger;
  /** What the write does, for the log lines, e.g. `append to the run's log`. */
  write: string;
  /** Fields added to the log lines, e.g. `{ runId }`. */
  fields?: Record<string, unknown>;
  /** Ends the retries: the last refusal is then thrown as `redis_out_of_memory`. */
  signal?: AbortSignal;
}

/** The pause before try `tries + 1`: doubling from the first delay, capped, with jitter so writers spread out. */
function retryDelayMs(tries: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** (tries - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

/**
 * Runs `write`, and runs it again while Redis refuses it for lack of memory,
 * pausing 100 ms, then twice as long each time, up to 2 s. Logs one line when
 * the first refusal comes and one when the write goes through. Any other
 * error is thrown at once. `write` must be safe to repeat after a refusal,
 * which a refused write is: Redis wrote nothing.
 */
export async function retryWhileOutOfMemory<T>(
  write: () => Promise<T>,
  options: OutOfMemoryRetryOptions,
): Promise<T> {
  const { logger, fields = {}, signal } = options;
  const startedAt = Date.now();
  for (let tries = 1; ; tries++) {
    try {
      const result = await write();
      if (tries > 1) {
        logger.info(
          { ...fields, write: options.write, tries, waitedMs: Date.now() - startedAt },
          "Redis has room again: the write went through",
        );
      }
      return result;
    } catch (error) {
      if (!isRedisOutOfMemory(error)) throw error;
      if (signal?.aborted) throw redisOutOfMemory(`the ${options.write} was given up`, error);
      if (tries === 1) {
        logger.warn(
          { ...fields, write: options.write },
          "Redis is out of memory: retrying the write until it has room",
        );
      }
      await delay(retryDelayMs(tries), undefined, signal ? { signal } : {}).catch(() => undefined);
    }
  }
}
