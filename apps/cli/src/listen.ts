/**
 * Listening for the endpoints of a deployable process (`--health-port`,
 * `--metrics-port`) on every interface, with one clear error for a port
 * another process holds.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrandError } from "@errand/core";
import { systemErrorCode } from "./exit-codes.js";

/**
 * Makes `server` listen on `port` (0: a free one) and resolves with the port
 * it listens on. A port another process holds throws `port_in_use` (exit 3)
 * saying that `what` cannot listen and naming `--<option>`.
 */
export async function listenOnPort(
  server: Server,
  port: number,
  what: string,
  option: string,
): Promise<number> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, () => resolve());
    });
  } catch (error) {
    if (systemErrorCode(error) !== "EADDRINUSE") throw error;
    throw new ErrandError(
      "port_in_use",
      `${what} cannot listen on port ${port}: another process holds it; choose another with --${option} <N> (0 picks a free one)`,
      { cause: error },
    );
  }
  return (server.address() as AddressInfo).port;
}

/** Stops `server` listening and ends its open connections. */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
