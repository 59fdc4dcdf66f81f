/**
 * Redis connections of the engine. Callers hand errand one `connection`
 * (a URL, ioredis options, or a ready ioredis client); the engine derives every
 * connection it needs from it: BullMQ's (which must not limit retries per
 * request), the store's, and dedicated ones for blocking reads.
 */
import { createSettledWaiter, type SettledWaiter, type StoreKeys } from "@errand/store";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { openRedisUrl } from "./redis-url.js";

/**
 * What `createErrand`, `createWorker` and `createCollector` accept as
 * `connection`; a string is a URL as `redis-url.ts` reads it (one server, or a
 * `redis+cluster://` list of nodes).
 */
export type ConnectionInput = string | RedisOptions | Redis | Cluster;

/** A Redis client of the engine: a single server or a Cluster. */
export type RedisConnection = Redis | Cluster;

/** True for a ready-made ioredis client (single server or Cluster). */
function isClient(input: ConnectionInput): input is Redis | Cluster {
  return input instanceof Redis || input instanceof Cluster;
}

/** What a connection may change from the `input` it is opened like. */
export interface ConnectionOverrides {
  /**
   * Send the commands issued in one tick of the event loop as one pipeline
   * (ioredis auto-pipelining). Never for a connection handed to BullMQ.
   * Ignored for a Cluster: ioredis' auto-pipelining groups a tick's commands
   * by node, so a command sent before the slots are known (or after they
   * moved) comes back `MOVED` instead of being redirected.
   */
  autoPipelining?: boolean;
}

/**
 * Opens a new connection like `input`. A given client is duplicated, never
 * shared: BullMQ and blocking reads need connections of their own.
 * `maxRetriesPerRequest: null` lets commands wait through a Redis restart
 * instead of failing, which BullMQ requires of its connections.
 */
export function openConnection(
  input: ConnectionInput,
  overrides: ConnectionOverrides = {},
): RedisConnection {
  const pipelining = overrides.autoPipelining ? { enableAutoPipelining: true } : {};
  if (isClient(input)) {
    return input instanceof Cluster
      ? input.duplicate(undefined, { enableAutoPipelining: false })
      : input.duplicate({ maxRetriesPerRequest: null, ...pipelining });
  }
  if (typeof input === "string") {
    return openRedisUrl(input, {
      redisOptions: { maxRetriesPerRequest: null, ...pipelining },
      clusterOptions: { enableAutoPipelining: false },
    });
  }
  return new Redis({ ...input, maxRetriesPerRequest: null, ...pipelining });
}

export { closeConnection, whenReady } from "@errand/store";

/** A settled waiter (`@errand/store`) whose subscriber is opened like `input`. */
export function openSettledWaiter(input: ConnectionInput, keys: StoreKeys): SettledWaiter {
  return createSettledWaiter(() => openConnection(input), keys);
}
