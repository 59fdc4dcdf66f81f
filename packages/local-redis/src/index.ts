/**
 * `@errand/local-redis` — a private `redis-server` for errand's own commands
 * (`errand demo`, `errand up`, `errand bench`) and for tests: on a free
 * loopback port, in a temporary directory, removed when it is stopped.
 *
 * ```ts
 * import { startRedis } from "@errand/local-redis";
 *
 * const server = await startRedis({ appendonly: true });
 * console.log(server.url);  // redis://127.0.0.1:<port>
 * await server.stop();      // shuts down, removes the directory
 * ```
 *
 * `startRedis` takes the first Redis it can get: `REDIS_URL` when set (then
 * `stop` does nothing and `kill`/`restart` refuse), else `redis-server` from
 * PATH, else `redis:7.0` in Docker through testcontainers (an optional peer:
 * installed beside errand); with none of these
 * it throws an `ErrandError` (`redis_unavailable`) saying how to get one.
 * `server.source` tells which one you got.
 *
 * `startRedisCluster` starts a real Redis Cluster of cluster-enabled
 * `redis-server`s from PATH (3 masters by default, replicas optional), for
 * `errand bench --cluster` and for tests.
 *
 * A local server never outlives the process that started it: one it forgot
 * to stop is killed, and its directory removed, when the process exits; and
 * when the process is killed (SIGKILL, or a signal it does not handle) a
 * watchdog — a small `sh` process of its own session, woken by the end of a
 * pipe from its owner — does the same. A local server can also be killed and
 * brought back (`kill`, `restart`: same port, same directory, its
 * append-only file replayed), to prove what survives a crash.
 *
 * @packageDocumentation
 */
export type { MasterFailover } from "./cluster-topology.js";
export { findFreePort } from "./free-port.js";
export { findOnPath, type LaunchedRedis, launchLocalRedis } from "./launch-local.js";
export {
  type RedisServer,
  type RedisSource,
  redisConfigArgs,
  type StartRedisOptions,
} from "./redis-server.js";
export { answersPing, type RedisAddress, sendRedisCommand } from "./resp.js";
export { runCommand } from "./run-command.js";
export {
  type RedisClusterServer,
  type StartRedisClusterOptions,
  startRedisCluster,
} from "./start-cluster.js";
export { NO_REDIS_MESSAGE, startRedis } from "./start-redis.js";
export { type WaitUntilOptions, waitUntil } from "./wait-until.js";
