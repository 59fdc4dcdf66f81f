/**
 * Redis connections of the engine. Callers hand errand one `connection`
 * (a URL, ioredis options, or a ready ioredis client); the engine derives every
 * connection it needs from it: BullMQ's (which must not limit retries per
 * request), the store's, and dedicated ones for blocking reads.
 */
import { Cluster, Redis, type RedisOptions } from "ioredis";

/** What `createErrand`, `createWorker` and `createCollector` accept as `connection`. */
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
    return new Redis(input, { maxRetriesPerRequest: null, ...pipelining });
  }
  return new Redis({ ...input, maxRetriesPerRequest: null, ...pipelining });
}

/**
 * Resolves once `connection` has passed ioredis's ready check, or has ended
 * (a command sent after that fails as usual). Subscribe only then: ioredis
 * writes a SUBSCRIBE at once while the connection still handshakes, and once
 * its reply puts the connection in subscriber mode, ioredis's own ready check
 * (an `INFO`) is refused, the connection fails and reconnects, and what was
 * published meanwhile is lost (ioredis issue #2037).
 */
export function whenReady(connection: RedisConnection): Promise<void> {
  if (connection.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      connection.off("ready", done);
      connection.off("end", done);
      resolve();
    };
    connection.on("ready", done);
    connection.on("end", done);
  });
}

/** Closes a connection, waiting for its pending replies; never throws. */
export async function closeConnection(connection: RedisConnection): Promise<void> {
  try {
    await connection.quit();
  } catch {
    connection.disconnect();
  }
}
