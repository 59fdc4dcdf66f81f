/**
 * Redis out of memory (docs/architecture/redis-errors.md#redis-out-of-memory, docs/architecture/collector.md). A Redis at its
 * `maxmemory` with the `noeviction` policy errand needs refuses every command
 * that may grow memory — SET, XADD, ZADD, HSET, INCR, and a script's first
 * such write, so a refused append or BullMQ script writes nothing — and keeps
 * answering reads and deletes. It is a passing state: once memory is freed or
 * `maxmemory` raised, the same write goes through. So a write refused for it
 * is retried, with backoff, like every transient Redis error (see
 * `transient-redis.ts`), and reported as `redis_out_of_memory` (retryable)
 * once the retrying ends.
 */
import { ErrandError, isErrandError } from "@errand/core";

/** How Redis words the refusal: `OOM command not allowed when used memory > 'maxmemory'.` */
const OUT_OF_MEMORY_REPLY = /^OOM /;

/** How deep {@link isRedisOutOfMemory} follows `cause`. */
const MAX_CAUSE_DEPTH = 5;

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
