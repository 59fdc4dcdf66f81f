/**
 * A small TCP proxy in front of Redis that can add latency: each chunk of
 * bytes, either way, is passed on `latencyMs` after it arrived, never before
 * the chunk ahead of it (so the bytes keep their order, and a client's
 * replies answer its commands). With a latency of 0
 * it passes chunks on at once. A connection closed or broken on one side is
 * closed on the other, so clients see Redis going away as it does.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running latency proxy. */
export interface LatencyProxy {
  /** `redis://127.0.0.1:<port>`: where clients connect instead of Redis. */
  readonly url: string;
  /** Sets the latency added to each chunk each way, in ms (0: none). */
  setLatency(ms: number): void;
  /** Closes the proxy and every connection through it. */
  close(): Promise<void>;
}

/**
 * Pipes `from` into `to`, each chunk held `latency()` ms (as set when it
 * arrived), in order: the chunks wait in one queue, drained by one timer set
 * for the first one's time, so a chunk never passes one ahead of it, even
 * when the latency was lowered between them or a timer fires late. (A timer
 * per chunk reordered them: Node runs the due timers of one duration before
 * those of another, and a chunk due at once passed before an earlier one
 * whose timer had not yet run; Redis then answered a client's commands in
 * another order than it sent them.)
 */
function delayedPipe(from: Socket, to: Socket, latency: () => number): void {
  const held: { chunk: Buffer; dueAt: number }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const passDue = () => {
    timer = undefined;
    let next = held[0];
    while (next !== undefined && next.dueAt <= Date.now()) {
      held.shift();
      if (!to.destroyed) to.write(next.chunk);
      next = held[0];
    }
    if (next !== undefined) timer = setTimeout(passDue, next.dueAt - Date.now());
  };
  from.on("data", (chunk: Buffer) => {
    held.push({ chunk, dueAt: Date.now() + latency() });
    // A timer set means chunks ahead of this one are held: it passes them first.
    if (timer === undefined) passDue();
  });
}

/** Starts a proxy on a free loopback port forwarding to `host`:`port`. */
export async function startLatencyProxy(host: string, port: number): Promise<LatencyProxy> {
  let latencyMs = 0;
  const latency = () => latencyMs;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host, port });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      // Either side ending or failing ends both: the client sees Redis go away.
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on("error", () => undefined);
    }
    delayedPipe(client, upstream, latency);
    delayedPipe(upstream, client, latency);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const proxyPort = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${proxyPort}`,
    setLatency(ms) {
      latencyMs = ms;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
