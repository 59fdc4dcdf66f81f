/**
 * Redis unable to persist, on demand: its `dir` moved to a directory that is
 * then removed and an RDB save point set, so that its BGSAVE fails and, with
 * `stop-writes-on-bgsave-error` (Redis's default), it refuses every write,
 * deletes too, with `MISCONF` until `dir` and `save` are set back. What a
 * full disk does to a Redis that saves. The test Redis is started with
 * `enable-protected-configs`, which `CONFIG SET dir` needs. Test-only: not
 * exported.
 */
import { mkdtemp, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { Redis } from "ioredis";

/** How often a refused write is looked for, in ms. */
const REFUSAL_CHECK_MS = 20;

/** The key written to learn whether Redis refuses writes. */
const PROBE_KEY = "test:misconf:probe";

async function configValue(redis: Redis, name: string): Promise<string> {
  const [, value = ""] = (await redis.config("GET", name)) as string[];
  return value;
}

/** Whether Redis refuses a write now with `MISCONF`; any other error is thrown. */
async function refusesWrites(redis: Redis): Promise<boolean> {
  try {
    await redis.set(PROBE_KEY, "1");
    return false;
  } catch (error) {
    if (error instanceof Error && /^MISCONF\b/.test(error.message)) return true;
    throw error;
  }
}

/**
 * Makes `redis`'s server fail its save and refuse writes with `MISCONF`;
 * resolves, once it does, with the function that lets it write again.
 */
export async function failRedisSaves(redis: Redis): Promise<() => Promise<void>> {
  const [dir, save] = [await configValue(redis, "dir"), await configValue(redis, "save")];
  const gone = await mkdtemp(join(tmpdir(), "errand-misconf-"));
  await redis.config("SET", "dir", gone);
  await rmdir(gone);
  await redis.config("SET", "save", "3600 1");
  await redis.bgsave();
  while (!(await refusesWrites(redis))) await delay(REFUSAL_CHECK_MS);
  return async () => {
    await redis.config("SET", "dir", dir);
    await redis.config("SET", "save", save);
  };
}
