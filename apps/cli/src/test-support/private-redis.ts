/**
 * Looking at the Redis a command says it uses: where a private one lives
 * (asked of the server itself), whether anything still answers on its port,
 * and waiting until it is gone with its folder.
 */
import { existsSync } from "node:fs";
import { waitUntil } from "@errand/testing";
import { Redis } from "ioredis";

/** A private Redis's folder and the pid of its `redis-server`. */
export interface PrivateRedis {
  dir: string;
  pid: number;
}

function connection(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  redis.on("error", () => {});
  return redis;
}

/** The `REDIS_URL=…` a command printed, if it printed one. */
export function printedRedisUrl(output: string): string | undefined {
  return /REDIS_URL=(\S+)/.exec(output)?.[1];
}

/** Asks the server at `url` for its folder (`CONFIG GET dir`) and its pid (`INFO server`). */
export async function privateRedisAt(url: string): Promise<PrivateRedis> {
  const redis = connection(url);
  try {
    await redis.connect();
    const [, dir] = (await redis.config("GET", "dir")) as [string, string];
    const pid = Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
    return { dir, pid };
  } finally {
    redis.disconnect();
  }
}

/** True when a server at `url` answers PING right now. */
export async function answersPing(url: string): Promise<boolean> {
  const redis = connection(url);
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Resolves `true` once nothing answers at `url` and `dir` is gone, `false` if that takes over `timeoutMs`. */
export async function waitUntilRemoved(
  url: string,
  dir: string,
  timeoutMs = 20_000,
): Promise<boolean> {
  const removed = await waitUntil(
    async () => (existsSync(dir) || (await answersPing(url)) ? undefined : true),
    { timeoutMs, intervalMs: 100 },
  );
  return removed === true;
}
