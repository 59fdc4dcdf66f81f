/**
 * `@errand/testing` — what tests need to exercise errand against real parts.
 *
 * ## A Redis of your own
 *
 * Every test file starts its own Redis and never touches the one on 6379:
 *
 * ```ts
 * import { Redis } from "ioredis";
 * import { startRedis, uniqueKeyPrefix } from "@errand/testing";
 *
 * const server = await startRedis();            // free loopback port, temp dir
 * const redis = new Redis(server.url);
 * const prefix = uniqueKeyPrefix("append");     // "t-append-3f9a…"
 * // … test …
 * redis.disconnect();
 * await server.stop();                          // shuts down, removes the temp dir
 * ```
 *
 * `startRedis` takes the first Redis it can get: `REDIS_URL` when set (then
 * `stop` does nothing and `kill`/`restart` refuse), else `redis-server` from
 * PATH, else `redis:7.0` in Docker through testcontainers; with none of these
 * it throws an `ErrandError` (`redis_unavailable`) saying how to get one.
 * `server.source` tells which one you got.
 *
 * ## Crashing Redis on purpose
 *
 * A local server can be killed and brought back, to prove what survives:
 *
 * ```ts
 * const server = await startRedis({ appendonly: true, appendfsync: "always" });
 * await redis.set("k", "v");
 * await server.kill();      // SIGKILL, resolves once the process is gone
 * await server.restart();   // same port, same dir: the AOF is replayed
 * ```
 *
 * ## Redis Cluster
 *
 * `startRedisCluster({ masters: 3 })` starts three cluster-enabled servers,
 * assigns every slot and resolves once each node reports `cluster_state:ok`;
 * connect with `new Cluster(cluster.nodes)`.
 *
 * @packageDocumentation
 */
export { uniqueKeyPrefix } from "./key-prefix.js";
export type { RedisServer, RedisSource, StartRedisOptions } from "./redis/redis-server.js";
export {
  type RedisClusterServer,
  type StartRedisClusterOptions,
  startRedisCluster,
} from "./redis/start-cluster.js";
export { NO_REDIS_MESSAGE, startRedis } from "./redis/start-redis.js";
