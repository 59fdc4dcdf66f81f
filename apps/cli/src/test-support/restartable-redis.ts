/**
 * A Redis a test stops and starts again (`kill`, `restart`: same port, same
 * directory) without losing a write: every write is in its append-only file
 * before Redis answers it. Test-only: not exported.
 */
import { type RedisServer, startRedis } from "@errand/testing";

/** Starts a Redis that keeps every write across `kill()` and `restart()`. */
export function startRestartableRedis(): Promise<RedisServer> {
  return startRedis({ appendonly: true, appendfsync: "always", maxmemoryPolicy: "noeviction" });
}
