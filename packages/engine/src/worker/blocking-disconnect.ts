/**
 * A way out of a BullMQ pause that waits out a worker's whole grace period.
 * Pausing a worker (which `ErrandWorker.close` does first) disconnects its
 * blocking connection, waits for the client's `end` event, then for the
 * worker's loop, which ends once its pending blocking read fails. Just after
 * a Redis restart, neither may happen:
 *
 * - A client `reconnecting` (socket closed, retry timer armed) is not ended
 *   by ioredis' `disconnect()`, which only clears the timer: no socket
 *   closes, so `end` never comes and the pause waits until the grace period
 *   ends (BullMQ issues 4065 and 4656 describe the same wait; ioredis issue
 *   1247 the disconnect). Such a client is first made to start a connection
 *   attempt, which the disconnect aborts before it opens a socket: the
 *   attempt fails and the client ends.
 * - A client connected again but not yet ready (`connect`) keeps the read it
 *   had in flight when Redis went away aside, to resend once ready; ending
 *   it then fails its other commands but not that read, and the loop waits
 *   for BullMQ's watchdog on it (the block timeout and 1 s more: up to 6 s).
 *   The disconnect waits until such a client is ready (the read resent) or
 *   closed.
 *
 * Only a single-server client: a Cluster's aborted attempt does not end it.
 */
import { Redis } from "ioredis";

/** What of BullMQ's `RedisConnection` the way out needs. */
export interface DisconnectingConnection {
  readonly client: Promise<unknown>;
  disconnect(wait?: boolean): Promise<void>;
}

/** Resolves once `client` is ready, closed or ended. */
function settledConnect(client: Redis): Promise<void> {
  return new Promise((resolve) => {
    const events = ["ready", "close", "end"] as const;
    const settle = () => {
      for (const event of events) client.off(event, settle);
      resolve();
    };
    for (const event of events) client.once(event, settle);
  });
}

/**
 * Makes `connection.disconnect()` end a single-server client waiting to
 * reconnect, and wait until one connected again is ready, so that the
 * blocking read it held fails (and, when told to wait, resolve once the
 * client ended); any other client is disconnected as before.
 */
export function endDisconnectsWhileReconnecting(connection: DisconnectingConnection): void {
  const disconnect = connection.disconnect.bind(connection);
  connection.disconnect = async (wait = true) => {
    const client = await connection.client;
    if (!(client instanceof Redis)) return disconnect(wait);
    while (client.status === "connect") await settledConnect(client);
    if (client.status !== "reconnecting") return disconnect(wait);
    const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
    // The attempt starts on the next tick; the disconnect below cancels it, and the client ends.
    client.connect().catch(() => undefined);
    client.disconnect();
    if (wait) await ended;
  };
}
