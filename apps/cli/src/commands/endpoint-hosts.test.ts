/**
 * Where `--health-port` and `--metrics-port` listen, on spawned `errand`
 * processes: on loopback by default, answering only requests that name a
 * loopback host (the dashboard's check against DNS rebinding, so a page a
 * browser opens cannot read them through a name pointing at 127.0.0.1);
 * `--health-host` and `--metrics-host` widen them; an address the machine
 * does not have is refused with exit 2.
 */
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, FIXTURE_AGENTS, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-endpoint-hosts");
let server: RedisServer;
const spawned: ErrandProcess[] = [];

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
});
afterAll(async () => {
  await Promise.all(spawned.map((process) => process.stop("SIGKILL")));
  await server?.stop();
});

/** An IPv4 address of this machine beyond loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === "IPv4" && !address.internal)?.address;

/** Spawns `errand <args>` with both endpoints on free ports: the hosts and ports it logged. */
async function spawnWithEndpoints(args: readonly string[], readyText: string) {
  const started = await spawnErrand(
    [...args, "--health-port", "0", "--metrics-port", "0", "--prefix", prefix],
    { REDIS_URL: server.url },
    readyText,
  );
  spawned.push(started);
  const logged = (name: string) => {
    const line = new RegExp(`"${name}Host":"([^"]+)","${name}Port":(\\d+)`).exec(started.output());
    expect(line, started.output()).not.toBeNull();
    return { host: line?.[1], port: Number(line?.[2]) };
  };
  return { health: logged("health"), metrics: logged("metrics") };
}

/** GETs `path` at `address:port` naming `host` in the `Host` header: status and body, or the connection error's code. */
function get(
  address: string,
  port: number,
  path: string,
  host: string,
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const sent = request({ host: address, port, path, headers: { host } }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? "?" }));
    sent.end();
  });
}

describe("the endpoints' hosts", () => {
  it("bind loopback by default and refuse a request naming another host", async () => {
    const { health, metrics } = await spawnWithEndpoints(
      ["worker", "--agents", FIXTURE_AGENTS, "--concurrency", "1"],
      "worker ready",
    );
    expect([health.host, metrics.host]).toEqual(["127.0.0.1", "127.0.0.1"]);
    for (const [port, path] of [
      [health.port, "/livez"],
      [metrics.port, "/metrics"],
    ] as const) {
      expect(await get("127.0.0.1", port, path, `localhost:${port}`)).toMatchObject({
        status: 200,
      });
      expect(await get("127.0.0.1", port, path, `127.0.0.1:${port}`)).toMatchObject({
        status: 200,
      });
      const rebound = await get("127.0.0.1", port, path, `rebound.example:${port}`);
      expect(rebound).toMatchObject({ status: 403 });
      expect("body" in rebound && rebound.body).toContain(
        `listens on loopback and answers only requests for localhost, 127.0.0.1, [::1], not "rebound.example:${port}"`,
      );
      if (outsideAddress !== undefined) {
        expect(await get(outsideAddress, port, path, outsideAddress)).toEqual({
          error: "ECONNREFUSED",
        });
      }
    }
  });

  it("listen where --health-host and --metrics-host say, without the loopback check", async () => {
    const { health, metrics } = await spawnWithEndpoints(
      ["collector", "--health-host", "0.0.0.0", "--metrics-host", "0.0.0.0"],
      "collector ready",
    );
    expect([health.host, metrics.host]).toEqual(["0.0.0.0", "0.0.0.0"]);
    const address = outsideAddress ?? "127.0.0.1";
    expect(await get(address, health.port, "/livez", `pod.example:${health.port}`)).toEqual({
      status: 200,
      body: "ok\n",
    });
    expect(await get(address, metrics.port, "/metrics", "scraper.example")).toMatchObject({
      status: 200,
    });
  });

  it("refuses an address this machine does not have, with exit 2 naming the option", async () => {
    const refused = await runErrand(
      ["collector", "--metrics-port", "0", "--metrics-host", "203.0.113.9", "--prefix", prefix],
      { env: { REDIS_URL: server.url } },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'the metrics endpoint cannot listen on "203.0.113.9": not an address of this machine; choose another with --metrics-host <address>',
    );
  });
});
