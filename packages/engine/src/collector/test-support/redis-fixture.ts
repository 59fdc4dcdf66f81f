/**
 * A private Redis for one test file of the collector, the reaper or the
 * reads, with the clients a test opens on it (closed at the end) and stores
 * under fresh prefixes. Test-only: not exported.
 */
import { createEventStore, type EventStore } from "@errand/store";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { type EngineKeys, engineKeys } from "../../engine-keys.js";

/** The shard count of the tests: small, so that every shard sees several runs. */
export const TEST_SHARDS = 4;

/** A store and the engine's keys under one fresh prefix. */
export interface PrefixedStore {
  prefix: string;
  keys: EngineKeys;
  store: EventStore;
}

/** A private Redis server with helpers around it. */
export interface EngineRedisFixture {
  server: RedisServer;
  url: string;
  /** The main client. */
  redis: Redis;
  /** Another client, closed at the end. */
  connect(): Redis;
  /** A store on the main client under a fresh prefix built from `label`. */
  prefixed(label: string): PrefixedStore;
  /** Closes every client and stops the server. */
  stop(): Promise<void>;
}

/** Starts a private Redis for one test file: the fixture `engineRedis` of `redisTest` (test-support/engine-test.ts). */
export async function startEngineRedis(): Promise<EngineRedisFixture> {
  const server = await startRedis({
    maxmemoryPolicy: "noeviction",
    // `CONFIG SET dir` is a protected config: a test moves it to make Redis's saves fail (redis-persistence.ts).
    args: ["--enable-protected-configs", "yes"],
  });
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: null });
    clients.push(client);
    return client;
  };
  const redis = connect();
  return {
    server,
    url: server.url,
    redis,
    connect,
    prefixed(label) {
      const prefix = uniqueKeyPrefix(label);
      return {
        prefix,
        keys: engineKeys(prefix),
        store: createEventStore({ redis, prefix, shards: TEST_SHARDS }),
      };
    },
    async stop() {
      for (const client of clients) client.disconnect();
      await server.stop();
    },
  };
}
