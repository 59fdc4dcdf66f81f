/**
 * Redis out of memory, on demand: its `maxmemory` set to one byte, so that
 * Redis (whose policy here is `noeviction`) refuses every command that may
 * grow memory, and still answers reads and deletes, until memory is given
 * back. Test-only: not exported.
 */
import type { Redis } from "ioredis";

/** Makes `redis`'s server run out of memory; resolves with the function that gives it back. */
export async function exhaustRedisMemory(redis: Redis): Promise<() => Promise<void>> {
  const [, previous = "0"] = (await redis.config("GET", "maxmemory")) as string[];
  await redis.config("SET", "maxmemory", "1");
  return async () => {
    await redis.config("SET", "maxmemory", previous);
  };
}
