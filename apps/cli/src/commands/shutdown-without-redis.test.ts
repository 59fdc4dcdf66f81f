/**
 * `errand worker` and `errand collector` given SIGTERM while their Redis is
 * stopped: each exits (0) instead of waiting for Redis forever; the worker,
 * whose heartbeat and run were waiting for Redis, says it closed without
 * waiting for it (the run it held stays in its log, for another worker to
 * resume once its lock lapses).
 */
import { type RedisServer, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_AGENTS, spawnErrand } from "../test-support/processes.js";
import { startRestartableRedis } from "../test-support/restartable-redis.js";
import { runErrand } from "../test-support/run-errand.js";

/** Far longer than the worker's grace period and the closing allowance: only a process that never ends reaches it. */
const GENEROUS_EXIT_MS = 45_000;

const prefix = uniqueKeyPrefix("cli-no-redis");
let server: RedisServer;

beforeAll(async () => {
  server = await startRestartableRedis();
});
afterAll(async () => {
  await server?.stop();
});

/** Resolves with how `process` exited, or rejects once {@link GENEROUS_EXIT_MS} passed. */
async function exitOf(process: Awaited<ReturnType<typeof spawnErrand>>) {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running:\n${process.output()}`)),
      GENEROUS_EXIT_MS,
    );
  });
  try {
    return await Promise.race([process.exited(), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

describe("SIGTERM with Redis unreachable", () => {
  it("ends the worker holding a run (saying it closed without waiting for Redis) and the collector", async () => {
    const env = { REDIS_URL: server.url };
    const worker = await spawnErrand(
      ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, "--grace", "1"],
      env,
      "worker ready",
    );
    const collector = await spawnErrand(["collector", "--prefix", prefix], env, "collector ready");
    try {
      const input = JSON.stringify({
        script: [{ sleepMs: 60_000, say: "never reached" }],
      });
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

      await server.kill();
      worker.child.kill("SIGTERM");
      collector.child.kill("SIGTERM");
      expect(await exitOf(worker)).toEqual({ code: 0, signal: null });
      expect(await exitOf(collector)).toEqual({ code: 0, signal: null });
      // The worker's heartbeat and run were waiting for Redis: it cut them.
      expect(worker.output()).toContain("Redis unreachable; closed without waiting for it");
      expect(worker.output()).toContain("worker closed");
      // The collector had nothing waiting for Redis (or cut it): either way, it stopped.
      expect(collector.output()).toContain("collector stopped");
      for (const stopped of [worker, collector]) {
        expect(stopped.output()).not.toContain("Unhandled error event");
      }
    } finally {
      await Promise.all([worker.stop("SIGKILL"), collector.stop("SIGKILL")]);
      await server.restart().catch(() => undefined);
    }
  });
});
