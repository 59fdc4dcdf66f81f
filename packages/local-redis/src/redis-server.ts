/** The shape every `startRedis` flavour returns, and the options it takes. */
import { ErrandError } from "@errand/core";

/** Where a {@link RedisServer} came from. */
export type RedisSource = "env" | "local" | "container";

/** A Redis server a test can use. */
export interface RedisServer {
  /** `redis://host:port` (or `REDIS_URL` as given). */
  url: string;
  host: string;
  port: number;
  /** Shuts the server down and removes its files. A no-op for `REDIS_URL`. */
  stop(): Promise<void>;
  /**
   * Kills the server abruptly (default SIGKILL) and resolves once it is gone.
   * Only a `"local"` server supports it; the others reject with `redis_unavailable`.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts a killed server again on the same port and directory and resolves
   * once it answers. Only a `"local"` server supports it.
   */
  restart(): Promise<void>;
  source: RedisSource;
}

/** Options of `startRedis`. */
export interface StartRedisOptions {
  /** Turn on the append-only file, so that `restart()` after `kill()` reloads the data. */
  appendonly?: boolean;
  /** The AOF fsync policy (Redis default: `everysec`). */
  appendfsync?: "always" | "everysec" | "no";
  /** `maxmemory-policy`, e.g. `noeviction` (what BullMQ asks for). */
  maxmemoryPolicy?: string;
  /** Further `redis-server` arguments, e.g. `["--maxclients", "100"]`. */
  args?: string[];
}

/** The `redis-server` arguments that carry {@link StartRedisOptions}. Snapshots are always off. */
export function redisConfigArgs(options: StartRedisOptions): string[] {
  return [
    "--save",
    "",
    "--appendonly",
    options.appendonly ? "yes" : "no",
    ...(options.appendfsync ? ["--appendfsync", options.appendfsync] : []),
    ...(options.maxmemoryPolicy ? ["--maxmemory-policy", options.maxmemoryPolicy] : []),
    ...(options.args ?? []),
  ];
}

/** A `kill`/`restart` for a server that cannot do it: rejects and says why. */
export function unsupported(operation: string, why: string): () => Promise<never> {
  return () =>
    Promise.reject(
      new ErrandError("redis_unavailable", `${operation}() is unavailable ${why}`, {
        details: { reason: "unsupported" },
      }),
    );
}
