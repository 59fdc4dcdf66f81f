/**
 * `closeOnSignals` in a real worker process (`worker-process.ts`), given
 * SIGTERM while its Redis is killed or frozen (SIGSTOP): the process exits
 * 0, and at once, since an idle worker has nothing to drain (within
 * `IDLE_CLOSE_ALLOWANCE_MS` past the signal, plus a loaded machine's
 * slack). Before, a close that met `Connection is closed` exited 1, and one
 * whose Redis froze waited its whole grace period and the allowance.
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDLE_CLOSE_ALLOWANCE_MS } from "../redis/closing.js";
import { killWorkers, spawnWorker, type WorkerProcess } from "../test-support/worker-processes.js";

/**
 * How long past its bound the process may take to exit on a loaded machine:
 * with the bound, under half the grace period an idle worker must not wait.
 */
const EXIT_SLACK_MS = 13_000;

/** The grace period the worker is given: an idle one must not wait for it. */
const GRACE_MS = 30_000;

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis({ appendonly: true, maxmemoryPolicy: "noeviction" });
});
afterAll(async () => {
  await server?.stop();
});

function spawnIdleWorker(label: string): Promise<WorkerProcess> {
  return spawnWorker({
    redisUrl: server.url,
    prefix: uniqueKeyPrefix(label),
    workerId: label,
    graceMs: GRACE_MS,
  });
}

/** Sends SIGTERM: the process must exit 0 at once. */
async function exitsAtOnce(worker: WorkerProcess) {
  await worker.waitForLine((line) => line.msg === "worker ready", "worker ready");
  const startedAt = Date.now();
  worker.signal("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    worker.exited,
    new Promise<"stuck">((resolve) => {
      timer = setTimeout(() => resolve("stuck"), IDLE_CLOSE_ALLOWANCE_MS + EXIT_SLACK_MS);
    }),
  ]);
  clearTimeout(timer);
  expect(exit).toEqual({ code: 0, signal: null });
  expect(worker.lines.some((line) => line.msg === "worker closed")).toBe(true);
  return Date.now() - startedAt;
}

/** The pid of the Redis at `url`, as it reports it. */
async function redisPid(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    return Number(/^process_id:(\d+)/m.exec(await redis.info("server"))?.[1]);
  } finally {
    redis.disconnect();
  }
}

describe("closeOnSignals with Redis gone", () => {
  it("exits 0 at once, Redis killed a tenth of a second before", async () => {
    const worker = await spawnIdleWorker("signals-killed");
    try {
      await worker.waitForLine((line) => line.msg === "worker ready", "worker ready");
      await server.kill();
      await new Promise((resolve) => setTimeout(resolve, 100));
      console.log(`closeOnSignals exit, Redis killed: ${await exitsAtOnce(worker)} ms`);
    } finally {
      await killWorkers([worker]);
      await server.restart();
    }
  });

  it("exits 0 at once, Redis frozen", async () => {
    const worker = await spawnIdleWorker("signals-frozen");
    const pid = await redisPid(server.url);
    try {
      await worker.waitForLine((line) => line.msg === "worker ready", "worker ready");
      process.kill(pid, "SIGSTOP");
      console.log(`closeOnSignals exit, Redis frozen: ${await exitsAtOnce(worker)} ms`);
    } finally {
      process.kill(pid, "SIGCONT");
      await killWorkers([worker]);
    }
  });
});
