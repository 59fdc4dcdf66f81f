/**
 * Which Redis a command talks to (`--redis`, else `REDIS_URL`), under which
 * key prefix, and a connection that fails fast with one clear message when
 * the server cannot be reached.
 */
import { ErrandError } from "@errand/core";
import { DEFAULT_KEY_PREFIX } from "@errand/store";
import { Redis } from "ioredis";
import { type ParsedArgs, usageError } from "./args.js";
import type { CliIO } from "./io.js";
import { oneLine } from "./output.js";

/** How long connecting may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** What a newcomer reads when a command needs a Redis and none was given. */
export const NO_REDIS_GIVEN =
  "no Redis given: set REDIS_URL=redis://host:port or pass --redis <url> " +
  "(errand demo and errand up start a Redis of their own when REDIS_URL is not set)";

/** `--redis`, else `REDIS_URL`, else `undefined`. */
export function givenRedisUrl(args: ParsedArgs, io: CliIO): string | undefined {
  const url = args.string("redis") ?? io.env.REDIS_URL;
  return url === undefined || url === "" ? undefined : url;
}

/** The Redis URL a command must have; without one, a `redis_unavailable` error (exit 3). */
export function requireRedisUrl(args: ParsedArgs, io: CliIO): string {
  const url = givenRedisUrl(args, io);
  if (url === undefined) throw new ErrandError("redis_unavailable", NO_REDIS_GIVEN);
  return url;
}

/** `--prefix`, else the default `errand`. */
export function keyPrefix(args: ParsedArgs): string {
  const prefix = args.string("prefix") ?? DEFAULT_KEY_PREFIX;
  if (prefix === "" || /\s/.test(prefix)) {
    throw usageError(
      `--prefix must be a non-empty word without spaces, not ${JSON.stringify(prefix)}`,
    );
  }
  return prefix;
}

/** `url` with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * A connection to `url` that has answered PING. It does not reconnect: a
 * server that cannot be reached throws `redis_unavailable` (exit 3) with the
 * reason, instead of retrying forever.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // Failures surface as rejected commands; the event would only be logged twice.
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ErrandError(
      "redis_unavailable",
      `cannot reach Redis at ${redactUrl(url)}: ${oneLine(reason)}`,
      { cause: error },
    );
  }
}
