/** The latency proxy of the `--slowdowns` fault, in front of a real Redis. */
import { startRedis } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LatencyProxy, startLatencyProxy } from "./latency-proxy.js";

describe("latency proxy", () => {
  let server: Awaited<ReturnType<typeof startRedis>>;
  let proxy: LatencyProxy;

  beforeAll(async () => {
    server = await startRedis();
    proxy = await startLatencyProxy(server.host, server.port);
  });

  afterAll(async () => {
    await proxy.close();
    await server.stop();
  });

  it("passes commands through, in order, and holds each way for the latency set", async () => {
    const client = new Redis(proxy.url);
    try {
      expect(await client.ping()).toBe("PONG");
      proxy.setLatency(200);
      const sentAt = Date.now();
      // Pipelined: each INCR must answer the count in the order sent, after at least the latency both ways.
      const counts = await Promise.all(
        Array.from({ length: 20 }, () => client.incr("proxy:counter")),
      );
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(400);
      expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await client.get("proxy:counter")).toBe("20");
      proxy.setLatency(0);
      expect(await client.ping()).toBe("PONG");
    } finally {
      client.disconnect();
    }
  });

  it("closes a client's connection when Redis's side closes", async () => {
    const client = new Redis(proxy.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await client.connect();
      const closed = new Promise((resolve) => client.once("close", resolve));
      const admin = new Redis(server.url);
      await admin.client("KILL", "TYPE", "normal", "SKIPME", "yes");
      admin.disconnect();
      await closed;
      expect(client.status).not.toBe("ready");
    } finally {
      client.disconnect();
    }
  });
});
