/**
 * `errand up` through a Redis restart: a run fired with `fire --wait` while
 * Redis is stopped for two seconds and started again (same port, same
 * append-only file) still settles, and neither process prints an
 * `Unhandled error event`: the process logs once that its connections were
 * lost, and once that they were all restored.
 */
import { setTimeout as delay } from "node:timers/promises";
import { RunResult } from "@errand/core";
import { type RedisServer, waitUntil } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnErrand } from "../test-support/processes.js";
import { startRestartableRedis } from "../test-support/restartable-redis.js";
import { runErrand } from "../test-support/run-errand.js";

/** How long Redis stays stopped. */
const OUTAGE_MS = 2_000;

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRestartableRedis();
  admin = new Redis(server.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** Resolves once some run's head says `running`. */
async function aRunRunning(): Promise<void> {
  const running = await waitUntil(
    async () => {
      const heads = (await admin.keys("errand:{s*}:run:*")).filter(
        (key) => !/:(log|blobs)/.test(key),
      );
      for (const head of heads) {
        if ((await admin.hget(head, "status")) === "running") return true;
      }
      return undefined;
    },
    { timeoutMs: 30_000 },
  );
  expect(running).toBe(true);
}

/** The JSON lines in `output` whose `msg` is `msg`. */
function linesWith(output: string, msg: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

describe("errand up through a Redis restart", () => {
  it("settles the run fired with --wait, with one lost and one restored line and no unhandled error event", async () => {
    const env = { REDIS_URL: server.url };
    const up = await spawnErrand(["up", "--dashboard-port", "0"], env, "Ctrl-C to stop.");
    try {
      const input = JSON.stringify({
        script: [
          {
            sleepMs: 3_000,
            call: [{ tool: "structured_output", args: { city: "Oslo", population: 709_000 } }],
          },
        ],
      });
      const firing = runErrand(["fire", "demo-child", "--input", input, "--wait", "--json"], {
        env,
      });
      await aRunRunning();
      await server.kill();
      await delay(OUTAGE_MS);
      await server.restart();

      const fired = await firing;
      expect(fired.code, fired.stderr).toBe(0);
      expect(RunResult.parse(JSON.parse(fired.stdout)).output).toEqual({
        city: "Oslo",
        population: 709_000,
      });
      expect(await up.stop("SIGINT")).toBe(0);

      const output = up.output();
      expect(output).not.toContain("Unhandled error event");
      expect(fired.stderr).not.toContain("Unhandled error event");
      // One outage: one line when it began, one when every connection was back.
      expect(linesWith(output, "redis connection lost")).toEqual([
        expect.objectContaining({ level: 40, connection: expect.any(String) }),
      ]);
      const [restored, ...more] = linesWith(output, "redis connection restored");
      expect(more).toEqual([]);
      expect(restored).toMatchObject({ level: 40, connection: expect.any(String) });
      // The worker's, the collector's, the reaper's, the dashboard's connections…
      expect(restored?.connections).toBeGreaterThan(10);
    } finally {
      await up.stop();
    }
  });
});
