import { createServer } from "node:net";
import { createErrand, type Errand } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCRIPTED_CITY, SLOW_INPUT } from "../test-support/city.js";
import { type ErrandProcess, FIXTURE_AGENTS, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

// Each test gets a Redis of its own: some stop it.
let server: RedisServer;
let errand: Errand;
const prefix = uniqueKeyPrefix("cli-health");
const spawned: ErrandProcess[] = [];

beforeEach(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  errand = createErrand({ connection: server.url, prefix });
});
afterEach(async () => {
  await Promise.all(spawned.splice(0).map((process) => process.stop("SIGKILL")));
  await errand?.close();
  await server?.stop();
});

/** Spawns `errand <command> --health-port 0 …` and returns it with the port it logged. */
async function spawnWithHealth(
  command: "worker" | "collector",
): Promise<{ process: ErrandProcess; port: number }> {
  const args =
    command === "worker"
      ? ["worker", "--agents", FIXTURE_AGENTS, "--concurrency", "1"]
      : ["collector"];
  const started = await spawnErrand(
    [...args, "--health-port", "0", "--prefix", prefix],
    { REDIS_URL: server.url },
    `${command} ready`,
  );
  spawned.push(started);
  const port = Number(/"healthPort":(\d+)/.exec(started.output())?.[1]);
  expect(port, started.output()).toBeGreaterThan(0);
  return { process: started, port };
}

/** GETs `path` of the health endpoints on `port`: its status and body. */
async function probe(port: number, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

/** Probes `path` until its answer satisfies `wanted`; fails naming the last answer if it never does. */
async function probeUntil(
  port: number,
  path: string,
  wanted: (answer: { status: number; body: string }) => boolean,
): Promise<{ status: number; body: string }> {
  let last: { status: number; body: string } | undefined;
  const found = await waitUntil(
    async () => {
      last = await probe(port, path);
      return wanted(last) ? last : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  expect(found, `${path} last answered ${JSON.stringify(last)}`).toBeDefined();
  return found as { status: number; body: string };
}

describe("--health-port", () => {
  it("worker: /livez 200, /readyz 200 once it takes runs, 503 while Redis is away, 200 when it is back", async () => {
    const { port } = await spawnWithHealth("worker");
    expect(await probe(port, "/livez")).toEqual({ status: 200, body: "ok\n" });
    expect(await probeUntil(port, "/readyz", (a) => a.status === 200)).toEqual({
      status: 200,
      body: "ok\n",
    });
    expect((await probe(port, "/metrics")).status).toBe(404);

    await server.kill();
    const away = await probeUntil(port, "/readyz", (a) => a.status !== 200);
    expect(away.status).toBe(503);
    expect(away.body).toMatch(/^redis does not answer: /);
    expect(await probe(port, "/livez")).toEqual({ status: 200, body: "ok\n" });

    await server.restart();
    await probeUntil(port, "/readyz", (a) => a.status === 200);
  });

  it("worker: /readyz 503 from SIGTERM on while /livez stays 200 as its run drains, then exit 0", async () => {
    const { process: worker, port } = await spawnWithHealth("worker");
    await probeUntil(port, "/readyz", (a) => a.status === 200);
    const { runId } = await errand.fire({ agent: SCRIPTED_CITY, input: JSON.parse(SLOW_INPUT) });
    await waitUntil(
      async () =>
        (await errand.store.readLog(runId)).some((event) => event.type === "run-started")
          ? true
          : undefined,
      { timeoutMs: 20_000 },
    );

    worker.child.kill("SIGTERM");
    expect(await probeUntil(port, "/readyz", (a) => a.status !== 200)).toEqual({
      status: 503,
      body: "shutting down\n",
    });
    // The run sleeps for a minute and the grace is 30 s: the worker is draining.
    expect(await probe(port, "/livez")).toEqual({ status: 200, body: "ok\n" });
    expect(worker.child.exitCode).toBeNull();

    await errand.cancel(runId, { reason: "the test is done with it" });
    expect(await worker.exited()).toEqual({ code: 0, signal: null });
  });

  it("collector: /readyz 200 once it reads the shards, and exit 0 on SIGTERM", async () => {
    const { process: collector, port } = await spawnWithHealth("collector");
    expect(await probe(port, "/livez")).toEqual({ status: 200, body: "ok\n" });
    await probeUntil(port, "/readyz", (a) => a.status === 200);
    expect(await collector.stop()).toBe(0);
  });

  it("refuses a port another process holds with exit 3, and a bad port with exit 2", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const held = (holder.address() as { port: number }).port;
    try {
      const taken = await runErrand(["collector", "--health-port", String(held)], {
        env: { REDIS_URL: server.url },
      });
      expect(taken.code).toBe(3);
      expect(taken.stderr).toBe(
        `errand: the health endpoints cannot listen on port ${held}: another process holds it; choose another with --health-port <N> (0 picks a free one)\n`,
      );
    } finally {
      holder.close();
    }
    const bad = await runErrand(["collector", "--health-port", "http"], {
      env: { REDIS_URL: server.url },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--health-port must be a whole number from 0 to 65535/);
  });
});
