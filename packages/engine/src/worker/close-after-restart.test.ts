/**
 * A worker with no active run, closed just after a Redis restart, closes at
 * once. Its BullMQ blocking connection is then still waiting to reconnect,
 * and pausing the worker used to wait for that connection's `end`, which
 * never came, until the grace period ended (`blocking-disconnect.ts`).
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.js";
import { createWorker } from "./create-worker.js";

/** Restarts, each under a new worker: a close used to wait out its grace after every one of them. */
const ROUNDS = 3;
/** How long Redis stays down: the worker's connections lose it and wait to retry. */
const DOWN_MS = 300;
const GRACE_MS = 10_000;
/** How long a close may take: a small part of the grace period it used to wait out. */
const CLOSE_BOUND_MS = 3_000;

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

/** Kills Redis under an idle worker, starts it again, and resolves with how long the worker's close took, in ms. */
async function closeAfterRestart(): Promise<number> {
  const worker = await createWorker({
    connection: server.url,
    prefix: uniqueKeyPrefix("close-after-restart"),
    agents: [defineAgent({ name: "idle", instructions: "Say nothing.", model: scriptedModel() })],
    logger: createLogger({ level: "silent" }),
  });
  await server.kill();
  await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
  await server.restart();
  const closing = Date.now();
  await worker.close({ graceMs: GRACE_MS });
  return Date.now() - closing;
}

describe("closing a worker just after a Redis restart", () => {
  it("does not wait out the grace period when no run is active", async () => {
    const tookMs: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) tookMs.push(await closeAfterRestart());
    expect(tookMs.filter((ms) => ms >= CLOSE_BOUND_MS)).toEqual([]);
  }, 60_000);
});
