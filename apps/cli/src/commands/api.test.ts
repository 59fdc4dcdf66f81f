/**
 * `errand api` spawned from the built CLI on a private Redis, listening on
 * every interface: the URL it prints is one that opens (loopback's, not
 * `0.0.0.0`), and its banner says where it listens.
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnErrand } from "../test-support/processes.js";

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
});
afterAll(async () => {
  await server?.stop();
});

describe("errand api --host 0.0.0.0", () => {
  it("prints a URL that opens, and says it listens on every interface", async () => {
    const api = await spawnErrand(
      ["api", "--host", "0.0.0.0", "--port", "0", "--prefix", uniqueKeyPrefix("api")],
      { REDIS_URL: server.url },
      "Ctrl-C to stop.",
    );
    try {
      const printed = /errand api: (http:\/\/\S+)\/v1 /.exec(api.output())?.[1];
      expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(api.output()).toContain("listening on every interface (0.0.0.0)");
      const document = await fetch(`${printed}/v1/openapi.json`);
      expect(document.status).toBe(200);
      expect(await api.stop("SIGINT")).toBe(0);
    } finally {
      await api.stop();
    }
  });
});
