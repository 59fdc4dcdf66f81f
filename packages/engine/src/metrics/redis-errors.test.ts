/**
 * `errand_redis_errors_total{kind}` counts what a worker's Redis connections
 * report: a worker on a private Redis that is killed counts the refused
 * reconnections as `econnrefused`, and nothing before.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";

let server: RedisServer;
let worker: ErrandWorker;

beforeAll(async () => {
  // Kept on disk, so the worker finds its queue as it left it once Redis is back.
  server = await startRedis({
    maxmemoryPolicy: "noeviction",
    appendonly: true,
    appendfsync: "always",
  });
  worker = await createWorker({
    connection: server.url,
    prefix: uniqueKeyPrefix("redis-errors"),
    agents: [defineAgent({ name: "idle", instructions: "Say nothing.", model: scriptedModel() })],
    logger: createLogger({ level: "silent" }),
  });
});

afterAll(async () => {
  await worker?.close();
  await server?.stop();
});

/** The value of `errand_redis_errors_total{kind="<kind>"}` on the worker, 0 without a line. */
async function errorsOf(kind: string): Promise<number> {
  const line = `errand_redis_errors_total{kind="${kind}"} `;
  const text = (await worker.prometheus?.text()) ?? "";
  const found = text.split("\n").find((candidate) => candidate.startsWith(line));
  return found === undefined ? 0 : Number(found.slice(line.length));
}

describe("the Redis errors a worker counts", () => {
  it("are none while Redis answers, and the refused reconnections once it is gone", async () => {
    expect(await errorsOf("econnrefused")).toBe(0);
    await server.kill();
    const counted = await waitUntil(
      async () => ((await errorsOf("econnrefused")) > 0 ? true : undefined),
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(counted).toBe(true);
    await server.restart();
  });
});
