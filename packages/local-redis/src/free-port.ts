/**
 * Free loopback TCP ports for the servers errand starts, picked below the
 * kernel's ephemeral range: a port in that range can be handed to any
 * outgoing connection while its server is down for a restart, so the server
 * could not come back on it.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Inclusive bounds of the ports to pick from. */
export interface PortRange {
  lowest: number;
  highest: number;
}

/** The lowest port picked: above the well-known and most registered services. */
const LOWEST_PORT = 20_000;
/** Linux's default start of the ephemeral range (macOS and Windows start higher). */
const DEFAULT_EPHEMERAL_START = 32_768;
/** Fewer free ports than this below the ephemeral range, and the kernel picks instead. */
const FEWEST_PORTS = 1_000;
const PICK_ATTEMPTS = 50;
const EPHEMERAL_RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range";

/**
 * The ports between `LOWEST_PORT` and the start of the ephemeral range, given
 * the text of Linux's `ip_local_port_range` ("32768\t60999"; `undefined`
 * elsewhere, when the default start is assumed). `undefined` when the
 * ephemeral range starts too low to leave room below it.
 */
export function portsBelowEphemeral(rangeText: string | undefined): PortRange | undefined {
  const start = Number.parseInt(rangeText?.trim().split(/\s+/)[0] ?? "", 10);
  const highest = (Number.isInteger(start) ? start : DEFAULT_EPHEMERAL_START) - 1;
  return highest - LOWEST_PORT + 1 >= FEWEST_PORTS ? { lowest: LOWEST_PORT, highest } : undefined;
}

function readEphemeralRange(): string | undefined {
  try {
    return readFileSync(EPHEMERAL_RANGE_FILE, "utf8");
  } catch {
    return undefined;
  }
}

/** Binds `port` on loopback and releases it, resolving the port the kernel gave. */
function bindAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (bound > 0 ? resolve(bound) : reject(new Error("no port assigned"))));
    });
  });
}

function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE";
}

/**
 * A random port of `range` that a bind on loopback found free, trying another
 * while the one drawn is taken (up to 50 draws, then that bind's error).
 * Without a range the kernel picks (port 0). `random` draws in [0, 1).
 */
export async function pickFreePort(
  range: PortRange | undefined,
  random: () => number = Math.random,
): Promise<number> {
  if (range === undefined) return bindAndRelease(0);
  for (let attempt = 1; ; attempt++) {
    const port = range.lowest + Math.floor(random() * (range.highest - range.lowest + 1));
    try {
      return await bindAndRelease(port);
    } catch (error) {
      if (!isAddressInUse(error) || attempt >= PICK_ATTEMPTS) throw error;
    }
  }
}

/**
 * A loopback port that was free a moment ago, below the kernel's ephemeral
 * range (see `portsBelowEphemeral`), so a server restarted on it cannot lose
 * it to an outgoing connection. Another process may still take it before the
 * server binds it; callers detect that collision and try again. Use it for a
 * server that is started on the port later or restarted on it; one that binds
 * once and stays up can bind port 0 itself.
 */
export function findFreePort(): Promise<number> {
  return pickFreePort(portsBelowEphemeral(readEphemeralRange()));
}
