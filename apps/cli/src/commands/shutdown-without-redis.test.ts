/**
 * Every long-running `errand` process given SIGTERM while its Redis is
 * stopped: `worker`, `collector`, `dashboard` and `up` each exit (0) within
 * their grace period and the closing allowance (measured on a loaded 2-core
 * machine: worker with a 1 s grace 6.1 s, collector 5.1 s, dashboard 0.2 s,
 * up 10.1 s), instead of waiting for Redis forever. The worker, whose
 * heartbeat and run were waiting for Redis, says it closed without waiting
 * for it; the run it held stays in its log, and once Redis is back another
 * worker resumes it from there.
 */
import { CLOSE_ALLOWANCE_MS, createErrand } from "@errand/engine";
import { type RedisServer, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_AGENTS, spawnErrand } from "../test-support/processes.js";
import { startRestartableRedis } from "../test-support/restartable-redis.js";
import { runErrand } from "../test-support/run-errand.js";

/** The grace period the worker is given (`--grace`), in seconds. */
const GRACE_SECONDS = 1;

/**
 * How long past its grace period and the closing allowance a process may
 * take to exit: its event loop's turns and its exit, on a loaded machine.
 */
const EXIT_SLACK_MS = 4_000;

/** The longest a worker given {@link GRACE_SECONDS} may take to exit. */
const WORKER_EXIT_MS = GRACE_SECONDS * 1000 + CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS;

/** The longest a collector or a dashboard (no grace period) may take to exit. */
const SERVICE_EXIT_MS = CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS;

/**
 * The longest `errand up` may take: it closes its worker (grace 0), then its
 * collector, each within the allowance (its dashboard closes at once).
 */
const UP_EXIT_MS = 2 * CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS;

/** How long the run's model sleeps: the worker holds it throughout. */
const RUN_SLEEP_MS = 5_000;

const prefix = uniqueKeyPrefix("cli-no-redis");
let server: RedisServer;

beforeAll(async () => {
  server = await startRestartableRedis();
});
afterAll(async () => {
  await server?.stop();
});

type Spawned = Awaited<ReturnType<typeof spawnErrand>>;

/**
 * Sends SIGTERM to `process` and resolves with how it exited, or rejects
 * once `withinMs` passed and it still runs.
 */
async function terminate(process: Spawned, withinMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running ${withinMs} ms after SIGTERM:\n${process.output()}`)),
      withinMs,
    );
  });
  process.child.kill("SIGTERM");
  try {
    return await Promise.race([process.exited(), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stops Redis, then sends SIGTERM to each process: each must exit 0 within
 * its bound, without an `Unhandled error event`.
 */
async function terminateWithoutRedis(bounded: readonly [Spawned, number][]) {
  await server.kill();
  const exits = await Promise.all(
    bounded.map(([process, withinMs]) => terminate(process, withinMs)),
  );
  for (const [index, [process]] of bounded.entries()) {
    expect(exits[index], process.output()).toEqual({ code: 0, signal: null });
    expect(process.output()).not.toContain("Unhandled error event");
  }
}

describe("SIGTERM with Redis unreachable", () => {
  it("ends the worker holding a run (saying it closed without waiting for Redis) and the collector, and the run is resumed elsewhere", async () => {
    const env = { REDIS_URL: server.url };
    const spawnWorker = () =>
      spawnErrand(
        ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, "--grace", `${GRACE_SECONDS}`],
        env,
        "worker ready",
      );
    const spawnCollector = () =>
      spawnErrand(["collector", "--prefix", prefix], env, "collector ready");
    const worker = await spawnWorker();
    const collector = await spawnCollector();
    const survivors: Spawned[] = [];
    const errand = createErrand({ connection: server.url, prefix });
    try {
      const input = JSON.stringify({ script: [{ sleepMs: RUN_SLEEP_MS, say: "resumed" }] });
      const fired = await runErrand(
        ["fire", "scripted-city", "--input", input, "--prefix", prefix, "--json"],
        { env },
      );
      expect(fired.code, fired.stderr).toBe(0);
      const { runId } = JSON.parse(fired.stdout) as { runId: string };
      const holding = await waitUntil(
        () => (worker.output().includes(`"runId":"${runId}"`) ? true : undefined),
        { timeoutMs: 30_000 },
      );
      expect(holding, worker.output()).toBe(true);

      await terminateWithoutRedis([
        [worker, WORKER_EXIT_MS],
        [collector, SERVICE_EXIT_MS],
      ]);
      // The worker's heartbeat and run were waiting for Redis: it cut them.
      expect(worker.output()).toContain("Redis unreachable; closed without waiting for it");
      expect(worker.output()).toContain("worker closed");
      // The collector had nothing waiting for Redis (or cut it): either way, it stopped.
      expect(collector.output()).toContain("collector stopped");

      // Redis back: another worker takes the run over from its log once its lock lapses.
      await server.restart();
      survivors.push(await spawnCollector(), await spawnWorker());
      const result = await errand.result(runId, { waitMs: 90_000 });
      expect(result).toMatchObject({ status: "succeeded", text: "resumed" });
      const starts = (await errand.store.readLog(runId)).filter(
        (event) => event.type === "run-started",
      );
      expect(starts.map((event) => event.data.attempt)).toEqual([1, 2]);
    } finally {
      await errand.close();
      await Promise.all([worker, collector, ...survivors].map((p) => p.stop("SIGKILL")));
      await server.restart().catch(() => undefined);
    }
  });

  it("ends errand dashboard and errand up, each within the closing allowance", async () => {
    const env = { REDIS_URL: server.url };
    const dashboard = await spawnErrand(
      ["dashboard", "--port", "0", "--prefix", prefix],
      { ...env, ERRAND_DASHBOARD_TOKEN: "" },
      "Ctrl-C to stop.",
    );
    const up = await spawnErrand(
      ["up", "--dashboard-port", "0", "--prefix", `${prefix}-up`],
      env,
      "Ctrl-C to stop.",
    );
    try {
      await terminateWithoutRedis([
        [dashboard, SERVICE_EXIT_MS],
        [up, UP_EXIT_MS],
      ]);
    } finally {
      await Promise.all([dashboard.stop("SIGKILL"), up.stop("SIGKILL")]);
      await server.restart().catch(() => undefined);
    }
  });
});
