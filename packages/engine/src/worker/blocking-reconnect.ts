/**
 * A way out of a BullMQ reconnect that waits forever. When a blocking read
 * of a worker outlives its timeout, BullMQ reconnects the worker's blocking
 * connection and waits for the client's `ready` event. An ioredis Cluster
 * client can be ready again without that event reaching the wait (seen after
 * a master of the cluster restarted, under load): the reconnect never ends,
 * and the worker takes no more jobs from that queue while its other queues go
 * on (BullMQ issue 4138 describes the same). Here the reconnect also ends
 * once the client says it is ready.
 */

/** How often a waiting reconnect looks whether the client is ready. */
const READY_POLL_MS = 250;

/** What of BullMQ's `RedisConnection` the way out needs. */
export interface ReconnectingConnection {
  readonly client: Promise<{ status: string }>;
  reconnect(): Promise<void>;
}

/**
 * Makes `connection.reconnect()` resolve as soon as its client's status is
 * `ready`, whether or not the `ready` event reaches BullMQ's wait; it still
 * rejects as before when the wait fails first.
 */
export function endReconnectsOnceReady(connection: ReconnectingConnection): void {
  const reconnect = connection.reconnect.bind(connection);
  connection.reconnect = async () => {
    const client = await connection.client;
    const waiting = reconnect();
    let poll: NodeJS.Timeout | undefined;
    const ready = new Promise<void>((resolve) => {
      poll = setInterval(() => {
        if (client.status === "ready") resolve();
      }, READY_POLL_MS);
    });
    try {
      await Promise.race([waiting, ready]);
    } finally {
      clearInterval(poll);
      // A wait left behind once the client is ready may still fail later: nobody awaits it.
      waiting.catch(() => undefined);
    }
  };
}
