/**
 * `startRedis`: a Redis server for a test, from the first place that has one —
 * `REDIS_URL`, then `redis-server` on PATH, then Docker — or one clear error
 * saying how to get Redis.
 */
import { ErrandError } from "@errand/core";
import { containerRuntimeState, startContainerRedis } from "./container-redis.js";
import { findOnPath, launchLocalRedis } from "./launch-local.js";
import {
  type RedisServer,
  redisConfigArgs,
  type StartRedisOptions,
  unsupported,
} from "./redis-server.js";

/** What to do when no Redis can be found: the message a newcomer reads. */
export const NO_REDIS_MESSAGE =
  "No Redis available: REDIS_URL is not set, redis-server is not on PATH and no Docker daemon answers. " +
  "Install redis-server (e.g. `apt-get install -y redis-server` or `brew install redis`), " +
  "or start Docker, or set REDIS_URL=redis://host:port to a Redis 7 you own.";

/** {@link NO_REDIS_MESSAGE} where the package that would run Redis in Docker is not installed. */
const NO_REDIS_WITHOUT_TESTCONTAINERS_MESSAGE =
  "No Redis available: REDIS_URL is not set, redis-server is not on PATH, and Docker is tried only with the package testcontainers installed. " +
  "Install redis-server (e.g. `apt-get install -y redis-server` or `brew install redis`), " +
  "or set REDIS_URL=redis://host:port to a Redis 7 you own, " +
  "or install testcontainers beside errand (`npm install testcontainers`) and start Docker.";

/**
 * Starts (or finds) a Redis server. Order:
 * 1. `REDIS_URL` set → that server (`source: "env"`); `stop` is a no-op and
 *    `kill`/`restart` reject, since the server is not ours.
 * 2. `redis-server` on PATH → a daemon on a free 127.0.0.1 port in its own
 *    temporary directory (`source: "local"`), supporting `kill`/`restart`.
 * 3. a container runtime → `redis:7.0` via testcontainers (`source: "container"`),
 *    where that optional package is installed.
 * 4. otherwise → {@link ErrandError} `redis_unavailable` with {@link NO_REDIS_MESSAGE}
 *    (or, without testcontainers, a message that says to install it for Docker).
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const envUrl = process.env.REDIS_URL;
  if (envUrl) return redisFromUrl(envUrl);
  const binary = findOnPath("redis-server");
  if (binary) return startLocalRedis(binary, options);
  const container = await containerRuntimeState();
  if (container === "ready") return startContainerRedis(redisConfigArgs(options));
  throw new ErrandError(
    "redis_unavailable",
    container === "no-testcontainers" ? NO_REDIS_WITHOUT_TESTCONTAINERS_MESSAGE : NO_REDIS_MESSAGE,
  );
}

function redisFromUrl(url: string): RedisServer {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ErrandError("redis_unavailable", `REDIS_URL is not a URL: ${url}`, { cause: error });
  }
  const why =
    "with REDIS_URL: that server is not ours to crash; unset REDIS_URL to get a local one";
  return {
    url,
    host: parsed.hostname,
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    source: "env",
    stop: () => Promise.resolve(),
    kill: unsupported("kill", why),
    restart: unsupported("restart", why),
  };
}

async function startLocalRedis(binary: string, options: StartRedisOptions): Promise<RedisServer> {
  const launched = await launchLocalRedis(binary, () => redisConfigArgs(options));
  const server = launched.process;
  return {
    url: `redis://${server.host}:${server.port}`,
    host: server.host,
    port: server.port,
    source: "local",
    stop: () => launched.dispose(),
    kill: (signal) => server.kill(signal),
    restart: () => launched.restart(),
  };
}
