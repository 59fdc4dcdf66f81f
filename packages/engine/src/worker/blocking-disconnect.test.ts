/**
 * `endDisconnectsWhileReconnecting` on BullMQ's own connection over a real
 * Redis, restarted: a blocking read in flight when Redis went away fails once
 * the connection is disconnected, whatever state its client is in.
 */
import { type RedisServer, startRedis, waitUntil } from "@errand/testing";
import { RedisConnection } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endDisconnectsWhileReconnecting } from "./blocking-disconnect.js";

/** How long Redis holds its clients' commands after the restart: the client sits in `connect`. */
const PAUSE_MS = 2_000;

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

describe("endDisconnectsWhileReconnecting", () => {
  it("fails the read held by a client connected again but not yet ready", async () => {
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
    const admin = new Redis({ host: server.host, port: server.port });
    await admin.call("CLIENT", "PAUSE", String(PAUSE_MS), "ALL");
    const connected = await waitUntil(
      async () => (client.status === "connect" ? true : undefined),
      {
        timeoutMs: 5_000,
        intervalMs: 5,
      },
    );
    expect(connected).toBe(true);
    await connection.disconnect(true);
    const settled = await Promise.race([
      read,
      new Promise((resolve) => setTimeout(() => resolve("pending"), PAUSE_MS + 3_000)),
    ]);
    expect(settled).toBe("failed");
    admin.disconnect();
  }, 30_000);
});
