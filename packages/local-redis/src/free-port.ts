/** Free loopback TCP ports, found by letting the kernel pick one. */
import { createServer } from "node:net";

/**
 * A loopback port that was free a moment ago: the kernel's pick for port 0,
 * released before returning. Another process may still take it before we
 * bind it, so callers detect that collision and try again.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}
