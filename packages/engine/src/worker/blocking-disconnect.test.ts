/**
 * `endDisconnectsWhileReconnecting` over a real Redis, restarted: a worker
 * with no active run, closed just after the restart, closes at once (its
 * pause used to wait for an `end` that never came, until the grace period
 * ended); and on BullMQ's own connection, a blocking read in flight when
 * Redis went away fails once the connection is disconnected, also while its
 * client is connected again but not yet ready.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { RedisConnection } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.js";
import { endDisconnectsWhileReconnecting } from "./blocking-disconnect.js";
import { createWorker } from "./create-worker.js";

/** How long Redis holds its clients' commands after the restart: the client sits in `connect`. */
const PAUSE_MS = 2_000;

/** Restarts, each under a new worker: a close used to wait out its grace after every one of them. */
const ROUNDS = 3;
/** How long Redis stays down: the worker's connections lose it and wait to retry. */
const DOWN_MS = 300;
const GRACE_MS = 30_000;
/**
 * How long a close may take: half the grace period it used to wait out (it
 * takes well under 1 s; the rest is room for a loaded machine).
 */
const CLOSE_BOUND_MS = 15_000;
/**
 * Tries at catching a client in `connect`: its reconnect must come after
 * Redis is paused, and one that came in the few ms before is tried again.
 */
const CONNECT_STATE_TRIES = 3;

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
  }, 150_000);
});

/**
 * A blocking read on BullMQ's connection, held while Redis restarts, with the
 * client caught connected again but not yet ready (Redis paused after the
 * restart); `undefined` when the client got ready first (it reconnected in
 * the moment between the restart and the pause).
 */
async function readHeldWhileConnecting(admin: { pause(): Promise<void> }) {
  const client = new Redis({
    host: server.host,
    port: server.port,
    maxRetriesPerRequest: null,
    retryStrategy: () => 1_000,
  });
  const connection = new RedisConnection(client, { blocking: true });
  // Its lost connection is reported as an error: expected here.
  connection.on("error", () => undefined);
  endDisconnectsWhileReconnecting(connection);
  await connection.client;
  const read = client.bzpopmin("blocking-disconnect", 0).then(
    () => "answered",
    () => "failed",
  );
  await server.kill();
  await server.restart();
  await admin.pause();
  const status = await waitUntil(
    async () =>
      client.status === "connect" || client.status === "ready" ? client.status : undefined,
    { timeoutMs: 5_000, intervalMs: 5 },
  );
  if (status === "connect") return { connection, read };
  client.disconnect();
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  return undefined;
}

describe("endDisconnectsWhileReconnecting", () => {
  it("fails the read held by a client connected again but not yet ready", async () => {
    let held: Awaited<ReturnType<typeof readHeldWhileConnecting>>;
    let admin: Redis | undefined;
    for (let tries = 0; held === undefined && tries < CONNECT_STATE_TRIES; tries += 1) {
      admin?.disconnect();
      const pausing = new Redis({ host: server.host, port: server.port, lazyConnect: true });
      admin = pausing;
      held = await readHeldWhileConnecting({
        pause: async () => {
          await pausing.connect();
          await pausing.call("CLIENT", "PAUSE", String(PAUSE_MS), "ALL");
        },
      });
    }
    expect(held, "a client caught connected again but not yet ready").toBeDefined();
    await held!.connection.disconnect(true);
    const settled = await Promise.race([
      held!.read,
      new Promise((resolve) => setTimeout(() => resolve("pending"), PAUSE_MS + 3_000)),
    ]);
    expect(settled).toBe("failed");
    admin?.disconnect();
  }, 60_000);
});
