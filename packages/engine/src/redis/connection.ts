/**
 * Redis connections of the engine. Callers hand errand one `connection`
 * (a URL, ioredis options, or a ready ioredis client); the engine derives every
 * connection it needs from it: BullMQ's (which must not limit retries per
 * request), the store's, and dedicated ones for blocking reads. Each is
 * named and handles its own errors: its state changes are log lines
 * (`connection-states.ts`), never `Unhandled error event`s.
 */
import { ErrandError } from "@errand/core";
import type { Logger } from "@errand/runtime";
import type { StoreKeys } from "@errand/store";
import { createSettledWaiter, type SettledWaiter } from "@errand/store/ops";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { coalesceWrites } from "./coalesced-writes.js";
import { encodeCommandsAsBuffers } from "./command-buffers.js";
import { watchConnectionStates } from "./connection-states.js";
import { openRedisUrl } from "./redis-url.js";

/**
 * What `createErrand`, `createWorker` and `createCollector` accept as
 * `connection`; a string is a URL as `redis-url.ts` reads it (one server, or a
 * `redis+cluster://` list of nodes).
 */
export type ConnectionInput = string | RedisOptions | Redis | Cluster;

/**
 * `input`, when it names a Redis. `undefined`, `null` and an empty URL (an
 * unset `REDIS_URL`) are refused with `redis_unavailable`, as the CLI refuses
 * a missing `REDIS_URL`: ioredis would read them as `localhost:6379`, a
 * Redis the caller never named.
 */
export function requireConnection(input: ConnectionInput | null | undefined): ConnectionInput {
  if (input !== undefined && input !== null && (typeof input !== "string" || input.trim() !== "")) {
    return input;
  }
  const given = typeof input === "string" ? "an empty string" : String(input);
  throw new ErrandError(
    "redis_unavailable",
    `no Redis given: connection is ${given} (is REDIS_URL set?); pass a redis://host:port URL (redis+cluster://host1:port1,host2:port2 for a Redis Cluster), ioredis options or an ioredis client`,
  );
}

/** A Redis client of the engine: a single server or a Cluster. */
export type RedisConnection = Redis | Cluster;

/** True for a ready-made ioredis client (single server or Cluster). */
function isClient(input: ConnectionInput): input is Redis | Cluster {
  return input instanceof Redis || input instanceof Cluster;
}

/** Where a connection's state changes are logged, and under which name. */
export interface ConnectionLog {
  /** The logger of its state changes (`redis connection lost` / `restored`). */
  logger: Logger;
  /** What it is for, as its lines name it: `worker commands`, `collector shard 3`, … */
  name: string;
}

/** What a connection may change from the `input` it is opened like. */
interface ConnectionOverrides {
  /**
   * Send the commands issued in one turn of the event loop in one socket
   * write (`coalesced-writes.ts`), with ioredis' auto-pipelining off. For a
   * connection handed to BullMQ, only through {@link openJobsConnection},
   * whose duplicates are not. Ignored for a Cluster (one socket a node,
   * opened and replaced by ioredis as slots move), whose commands are
   * written one by one.
   */
  coalesceWrites?: boolean;
  /**
   * Fail the commands waiting for a lost single-server connection after
   * this many reconnect attempts (ioredis' `maxRetriesPerRequest`), instead
   * of keeping them queued until Redis is back, however long: for a
   * client's connections, whose calls wait out the failure themselves
   * (`client-patience.ts`). Default none: they wait (BullMQ's workers
   * require it, and a worker's writes wait Redis out).
   */
  commandRetries?: number;
}

/**
 * The {@link ConnectionOverrides.commandRetries} of a client's connections:
 * a command waiting for a lost connection fails at every third reconnect
 * attempt, within seconds, and the call it belongs to tries again.
 */
export const CLIENT_COMMAND_RETRIES = 2;

/** How {@link openConnection} opens one: where it logs, and what it changes from its input. */
export type ConnectionOptions = ConnectionLog & ConnectionOverrides;

/** A new client like `input`, not yet watched. */
function newClient(input: ConnectionInput, overrides: ConnectionOverrides): RedisConnection {
  // Coalesced, a connection's commands are not auto-pipelined too, even when `input`'s are.
  const pipelining = overrides.coalesceWrites ? { enableAutoPipelining: false } : {};
  const retries = { maxRetriesPerRequest: overrides.commandRetries ?? null };
  if (isClient(input)) {
    return input instanceof Cluster
      ? input.duplicate(undefined, { enableAutoPipelining: false })
      : input.duplicate({ ...retries, ...pipelining });
  }
  if (typeof input === "string") {
    return openRedisUrl(input, {
      redisOptions: { ...retries, ...pipelining },
      clusterOptions: { enableAutoPipelining: false },
    });
  }
  return new Redis({ ...input, ...retries, ...pipelining });
}

/**
 * Opens a new connection like `input`, named `options.name`, whose errors
 * are handled and whose state changes go to `options.logger`. Throws
 * `redis_unavailable` when no Redis is given ({@link requireConnection}). A given client
 * is duplicated, never shared: BullMQ and blocking reads need connections of
 * their own. `maxRetriesPerRequest: null` (unless `commandRetries` is
 * given) lets commands wait through a Redis restart instead of failing,
 * which BullMQ requires of its workers' connections. A single-server
 * connection, and each duplicate made of it, writes each command as one
 * Buffer encoded by errand (`command-buffers.ts`).
 */
export function openConnection(
  input: ConnectionInput,
  options: ConnectionOptions,
): RedisConnection {
  const connection = newClient(requireConnection(input), options);
  if (connection instanceof Redis) {
    encodeCommandsAsBuffers(connection);
    if (options.coalesceWrites) coalesceWrites(connection);
  }
  watchConnectionStates(connection, options.logger, options.name);
  return connection;
}

/**
 * Opens the connection a worker hands its BullMQ workers, its writes
 * coalesced: the jobs that end in one turn of the event loop (each
 * `moveToFinished`, which also takes the next job) leave in one write
 * instead of one each. Its duplicates are encoded but not coalesced (nor
 * auto-pipelined): BullMQ duplicates it for each worker's blocking
 * connection, whose `BZPOPMIN` keeps the connection to itself as before.
 */
export function openJobsConnection(input: ConnectionInput, log: ConnectionLog): RedisConnection {
  return openConnection(input, { ...log, coalesceWrites: true });
}

export { closeConnection, whenReady } from "@errand/store/ops";

/**
 * A settled waiter (`@errand/store`) whose subscriber is opened like `input`,
 * its state changes logged as `log` says.
 */
export function openSettledWaiter(
  input: ConnectionInput,
  keys: StoreKeys,
  log: ConnectionLog,
): SettledWaiter {
  return createSettledWaiter(() => openConnection(input, log), keys);
}
