/**
 * The life of a Redis client: waiting for its handshake, and closing it
 * without losing replies it still waits for.
 */
import type { RedisClient } from "./lua-command.js";

/**
 * Resolves once `connection` has passed ioredis's ready check, or has ended
 * (a command sent after that fails as usual). Subscribe only then: ioredis
 * writes a SUBSCRIBE at once while the connection still handshakes, and once
 * its reply puts the connection in subscriber mode, ioredis's own ready check
 * (an `INFO`) is refused, the connection fails and reconnects, and what was
 * published meanwhile is lost (ioredis issue #2037).
 */
export function whenReady(connection: RedisClient): Promise<void> {
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
export async function closeConnection(connection: RedisClient): Promise<void> {
  try {
    await connection.quit();
  } catch {
    connection.disconnect();
  }
}
