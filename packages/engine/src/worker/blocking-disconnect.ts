/**
 * A way out of a BullMQ pause that waits out a worker's whole grace period.
 * Pausing a worker (which `ErrandWorker.close` does first) disconnects its
 * blocking connection and waits for the client's `end` event. Just after a
 * Redis restart that client may be `reconnecting`: its socket is closed and
 * a retry timer is armed. ioredis' `disconnect()` then only clears the timer:
 * no socket closes, so `end` never comes, the client stays `reconnecting`,
 * and the pause waits until the grace period ends (BullMQ issues 4065 and
 * 4656 describe the same wait; ioredis issue 1247 the disconnect). Here such
 * a client is first made to start a connection attempt, which the disconnect
 * aborts before it opens a socket: the attempt fails and the client ends.
 * Only a single-server client: a Cluster's aborted attempt does not end it.
 */
import { Redis } from "ioredis";
import type { RedisConnection } from "../connection.js";

/** What of BullMQ's `RedisConnection` the way out needs. */
export interface DisconnectingConnection {
  readonly client: Promise<RedisConnection>;
  disconnect(wait?: boolean): Promise<void>;
}

/**
 * Makes `connection.disconnect()` end a single-server client that is waiting
 * to reconnect (and, when told to wait, resolve once it ended); any other
 * client is disconnected as before.
 */
export function endDisconnectsWhileReconnecting(connection: DisconnectingConnection): void {
  const disconnect = connection.disconnect.bind(connection);
  connection.disconnect = async (wait = true) => {
    const client = await connection.client;
    if (!(client instanceof Redis) || client.status !== "reconnecting") return disconnect(wait);
    const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
    // The attempt starts on the next tick; the disconnect below cancels it, and the client ends.
    client.connect().catch(() => undefined);
    client.disconnect();
    if (wait) await ended;
  };
}
