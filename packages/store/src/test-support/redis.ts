/**
 * Redis for the store's tests: a private server from `@errand/testing`, the
 * clients a test opens on it (all closed at the end), a store with a unique
 * prefix, and the server's command counters. Test-only: not exported.
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { createEventStore, type EventStore, type EventStoreOptions } from "../event-store.js";

/** A private Redis server with helpers around it. */
export interface RedisFixture {
  server: RedisServer;
  /** The main client. */
  redis: Redis;
  /** Another client on the same server (e.g. a dedicated blocking connection). */
  connect(): Redis;
  /** A store on the main client with a fresh prefix built from `label`. */
  store(label: string, options?: Omit<EventStoreOptions, "redis" | "prefix">): EventStore;
  /** Closes every client and stops the server. */
  stop(): Promise<void>;
}

/** Starts a private Redis for one test file. */
export async function startRedisFixture(): Promise<RedisFixture> {
  const server = await startRedis();
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
    clients.push(client);
    return client;
  };
  const redis = connect();
  return {
    server,
    redis,
    connect,
    store: (label, options = {}) =>
      createEventStore({ redis, prefix: uniqueKeyPrefix(`store-${label}`), ...options }),
    async stop() {
      for (const client of clients) client.disconnect();
      await server.stop();
    },
  };
}

/** How many times the server ran `command` (from `INFO commandstats`; 0 if never). */
export async function commandCalls(redis: Redis, command: string): Promise<number> {
  const info = await redis.info("commandstats");
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m").exec(info);
  return match ? Number(match[1]) : 0;
}
