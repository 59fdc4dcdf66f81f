/** The latency proxy of the `--slowdowns` fault, in front of a real Redis. */
import { setTimeout as delay } from "node:timers/promises";
import { startRedis } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LatencyProxy, startLatencyProxy } from "./latency-proxy.js";

/** Keeps the process busy for `ms` ms, as a harness under load is. */
function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

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

  it("keeps a client's commands in order while the latency changes and its timers run late", async () => {
    const client = new Redis(proxy.url);
    try {
      await client.ping();
      const sent = Array.from({ length: 300 }, (_, i) => `command ${i}`);
      const replies: Promise<string>[] = [];
      for (const [i, message] of sent.entries()) {
        // Every 10 commands the latency goes from 20 ms to none or back, so commands held
        // longer are followed by commands due sooner: each must still reach Redis after them.
        if (i % 10 === 0) proxy.setLatency(i % 20 === 0 ? 20 : 0);
        replies.push(client.echo(message));
        // The process busy now and then, as the chaos harness is: timers fire late.
        if (i % 7 === 0) blockFor(3);
        // One command a turn: each reaches the proxy as a chunk of its own.
        await delay(1);
      }
      // Reordered on the way, Redis answers them in another order: a command gets another's reply.
      expect(await Promise.all(replies)).toEqual(sent);
    } finally {
      proxy.setLatency(0);
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
