/** The free-port picker: below the ephemeral range, and past ports that are taken. */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { findFreePort, type PortRange, pickFreePort, portsBelowEphemeral } from "./free-port.js";

const held: Server[] = [];

/** Listens on `port` of loopback until the test ends. */
async function hold(port: number): Promise<void> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port }, resolve));
}

/** A `random` that draws exactly `port` from `range`. */
function drawOf(range: PortRange, port: number): number {
  return (port - range.lowest + 0.5) / (range.highest - range.lowest + 1);
}

afterEach(async () => {
  await Promise.all(
    held.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

describe("portsBelowEphemeral", () => {
  it("ends just below the start of the kernel's ephemeral range", () => {
    expect(portsBelowEphemeral("32768\t60999\n")).toEqual({ lowest: 20_000, highest: 32_767 });
    expect(portsBelowEphemeral("40000 65000")).toEqual({ lowest: 20_000, highest: 39_999 });
  });

  it("assumes Linux's default when there is no range to read", () => {
    expect(portsBelowEphemeral(undefined)).toEqual({ lowest: 20_000, highest: 32_767 });
  });

  it("leaves the pick to the kernel when the range starts too low to leave room", () => {
    expect(portsBelowEphemeral("20500 60999")).toBeUndefined();
  });
});

describe("pickFreePort", () => {
  it("picks ports of the range that are free", async () => {
    const range = { lowest: 20_000, highest: 32_767 };
    for (let i = 0; i < 20; i++) {
      const port = await pickFreePort(range);
      expect(port).toBeGreaterThanOrEqual(range.lowest);
      expect(port).toBeLessThanOrEqual(range.highest);
      await hold(port);
    }
  });

  it("draws again when the port drawn is taken", async () => {
    const range = { lowest: 20_000, highest: 32_767 };
    const taken = await pickFreePort(range);
    await hold(taken);
    const draws = [drawOf(range, taken), drawOf(range, taken), Math.random()];
    const port = await pickFreePort(range, () => draws.shift() ?? Math.random());
    expect(port).not.toBe(taken);
    expect(draws).toEqual([]);
  });

  it("gives up with the bind's error when every port is taken", async () => {
    const taken = await pickFreePort({ lowest: 20_000, highest: 32_767 });
    await hold(taken);
    await expect(pickFreePort({ lowest: taken, highest: taken })).rejects.toMatchObject({
      code: "EADDRINUSE",
    });
  });

  it("lets the kernel pick without a range", async () => {
    expect(await pickFreePort(undefined)).toBeGreaterThan(0);
  });
});

describe("findFreePort", () => {
  it("stays below this machine's ephemeral range", async () => {
    const ephemeralStart = Number.parseInt(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0] ?? "",
      10,
    );
    for (let i = 0; i < 20; i++) {
      const port = await findFreePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });
});
