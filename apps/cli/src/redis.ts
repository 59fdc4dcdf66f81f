/**
 * Which Redis a command talks to (`--redis`, else `REDIS_URL`), under which
 * key prefix, and a connection that fails fast with one clear message when
 * the server cannot be reached.
 */
import { ErrandError } from "@errand/core";
import type { RedisConnection } from "@errand/engine";
import { openRedisUrl, redactRedisUrl } from "@errand/engine/ops";
import { redisConnectionError } from "@errand/store";
import { DEFAULT_KEY_PREFIX } from "@errand/store/ops";
import { type ParsedArgs, usageError } from "./args.js";
import type { CliIO } from "./io.js";

/** How long connecting may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** What a newcomer reads when a command needs a Redis and none was given. */
export const NO_REDIS_GIVEN =
  "no Redis given: set REDIS_URL=redis://host:port (redis+cluster://host1:port1,host2:port2 for a Redis Cluster) or pass --redis <url> " +
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

/** `url` with every credential in it redacted: the one way the CLI prints a Redis URL (the engine's `redactRedisUrl`). */
export const redactUrl = redactRedisUrl;

/**
 * A connection to `url` that has answered PING: a `Cluster` for a
 * `redis+cluster://` URL (every node it names is tried), else a `Redis`. It
 * does not reconnect: a server that cannot be reached throws
 * `redis_unavailable` (exit 3) saying why — refused credentials, a permission
 * the user lacks, a failed TLS handshake, or an unreachable server
 * (`redisConnectionError`) — instead of retrying forever. A cluster URL
 * written wrong throws `invalid_spec` (exit 2).
 */
export async function connectRedis(url: string): Promise<RedisConnection> {
  const redis = openRedisUrl(url, {
    redisOptions: {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
    },
    clusterOptions: { lazyConnect: true, clusterRetryStrategy: () => null },
  });
  // ioredis rejects a failed connect with a bare "Connection is closed.": the
  // error it emitted before says why (for a cluster, the last node's error).
  let emitted: unknown;
  redis.on("error", (error: unknown) => {
    emitted = lastNodeError(error);
  });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw redisConnectionError(emitted ?? lastNodeError(error), redactUrl(url));
  }
}

/** The error of the last node tried, for ioredis' "Failed to refresh slots cache" of a cluster; else `error`. */
function lastNodeError(error: unknown): unknown {
  if (error instanceof Error && "lastNodeError" in error && error.lastNodeError instanceof Error) {
    return error.lastNodeError;
  }
  return error;
}
