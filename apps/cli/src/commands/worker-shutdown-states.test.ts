/**
 * `errand worker` given SIGTERM in each state its Redis may be in exits 0,
 * within the bound its help and the engine promise, and prints each exit
 * time (RELIABILITY.md, Shutdown):
 * - Redis killed a tenth of a second before (the close met `Connection is
 *   closed` and exited 1 before): an idle worker exits at once;
 * - Redis frozen (SIGSTOP: connections open, nothing answers): an idle
 *   worker exits at once, one holding a run once its grace period and the
 *   closing allowance have passed;
 * - a Redis Cluster failing over (a master SIGKILLed half a second before):
 *   an idle worker exits at once.
 * "At once" is within `IDLE_CLOSE_ALLOWANCE_MS` (1 s) past the signal, plus
 * the slack of a loaded machine. Every worker keeps the default grace
 * period (30 s): an idle one has nothing to drain and does not wait for it.
 */
import { CLOSE_ALLOWANCE_MS, createErrand, IDLE_CLOSE_ALLOWANCE_MS } from "@errand/engine";
import {
  type RedisClusterServer,
  type RedisServer,
  startRedisCluster,
  uniqueKeyPrefix,
  waitUntil,
} from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, FIXTURE_AGENTS, spawnErrand } from "../test-support/processes.js";
import { startRestartableRedis } from "../test-support/restartable-redis.js";

/**
 * How long past its bound a process may take to exit: its event loop's turns
 * and its exit, on a loaded machine; still well short of the client's 30 s
 * patience a stuck close would wait out.
 */
const EXIT_SLACK_MS = 13_000;

/** The grace period of the worker holding a run (`--grace`), in seconds. */
const GRACE_SECONDS = 1;

let server: RedisServer;

beforeAll(async () => {
  server = await startRestartableRedis();
});
afterAll(async () => {
  await server?.stop();
});

/** An idle worker on `url` under a prefix of its own, with the default grace period. */
function spawnWorker(url: string, prefix: string, args: readonly string[] = []) {
  return spawnErrand(
    ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, ...args],
    { REDIS_URL: url },
    "worker ready",
  );
}

/**
 * Sends SIGTERM to `worker`: it must exit 0 within `withinMs`, without an
 * `Unhandled error event`. Prints and returns how long it took.
 */
async function exitsOnSigterm(worker: ErrandProcess, state: string, withinMs: number) {
  const startedAt = Date.now();
  worker.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<"stuck">((resolve) => {
    timer = setTimeout(() => resolve("stuck"), withinMs);
  });
  const exit = await Promise.race([worker.exited(), stuck]);
  clearTimeout(timer);
  const tookMs = Date.now() - startedAt;
  console.log(`worker exit on SIGTERM, ${state}: ${tookMs} ms`);
  expect(exit, worker.output()).toEqual({ code: 0, signal: null });
  expect(worker.output()).not.toContain("Unhandled error event");
  expect(worker.output()).toContain("worker closed");
  return tookMs;
}

/** The pid of the Redis at `url`, as it reports it. */
async function redisPid(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    const info = await redis.info("server");
    return Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  } finally {
    redis.disconnect();
  }
}

describe("errand worker on SIGTERM, whatever state Redis is in", () => {
  it("exits 0 at once when idle, Redis killed a tenth of a second before", async () => {
    const worker = await spawnWorker(server.url, uniqueKeyPrefix("shutdown-killed"));
    try {
      await server.kill();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await exitsOnSigterm(worker, "idle, Redis killed", IDLE_CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS);
    } finally {
      await worker.stop("SIGKILL");
      await server.restart();
    }
  });

  it("exits 0 at once when idle, Redis frozen", async () => {
    const worker = await spawnWorker(server.url, uniqueKeyPrefix("shutdown-frozen"));
    const pid = await redisPid(server.url);
    try {
      process.kill(pid, "SIGSTOP");
      await exitsOnSigterm(worker, "idle, Redis frozen", IDLE_CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS);
    } finally {
      process.kill(pid, "SIGCONT");
      await worker.stop("SIGKILL");
    }
  });

  it("exits 0 after its grace period and the closing allowance when holding a run, Redis frozen", async () => {
    const prefix = uniqueKeyPrefix("shutdown-frozen-run");
    const worker = await spawnWorker(server.url, prefix, ["--grace", `${GRACE_SECONDS}`]);
    const errand = createErrand({ connection: server.url, prefix });
    const pid = await redisPid(server.url);
    try {
      const { runId } = await errand.fire({
        agent: "scripted-city",
        input: { script: [{ sleepMs: 60_000, say: "late" }] },
      });
      const holding = await waitUntil(
        () => (worker.output().includes(`"runId":"${runId}"`) ? true : undefined),
        { timeoutMs: 30_000 },
      );
      expect(holding, worker.output()).toBe(true);
      process.kill(pid, "SIGSTOP");
      await exitsOnSigterm(
        worker,
        `holding a run (grace ${GRACE_SECONDS} s), Redis frozen`,
        GRACE_SECONDS * 1000 + CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS,
      );
      expect(worker.output()).toContain("Redis unreachable; closed without waiting for it");
    } finally {
      process.kill(pid, "SIGCONT");
      await worker.stop("SIGKILL");
      await errand.close();
    }
  });

  describe("on a Redis Cluster", () => {
    let cluster: RedisClusterServer;

    beforeAll(async () => {
      cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
    }, 90_000);
    afterAll(async () => {
      await cluster?.stop();
    });

    it("exits 0 at once when idle, a master SIGKILLed half a second before", async () => {
      const nodes = [...cluster.nodes, ...cluster.replicas];
      const url = `redis+cluster://${nodes.map(({ host, port }) => `${host}:${port}`).join(",")}`;
      const worker = await spawnWorker(url, uniqueKeyPrefix("shutdown-failover"));
      try {
        const failingOver = cluster.failOver(0);
        await new Promise((resolve) => setTimeout(resolve, 500));
        await exitsOnSigterm(
          worker,
          "idle, a cluster master failing over",
          IDLE_CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS,
        );
        await failingOver;
      } finally {
        await worker.stop("SIGKILL");
      }
    }, 120_000);
  });
});
