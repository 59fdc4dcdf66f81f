/**
 * Two connections of the engine through a Redis restart: their errors are
 * handled (ioredis prints no `Unhandled error event`), the process logs one
 * `redis connection lost` and one `redis connection restored` (naming a
 * connection, and how many were lost), and commands go through again once
 * Redis is back. Outages that follow one another within
 * `STATE_LOG_INTERVAL_MS` are not logged one by one: the next loss logged
 * counts them.
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { captureLogs } from "../test-support/log-capture.js";
import { closeConnection, openConnection, whenReady } from "./connection.js";
import { STATE_LOG_INTERVAL_MS } from "./connection-states.js";

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis({ appendonly: true, appendfsync: "always" });
});
afterAll(() => server?.stop());

describe("a connection through a Redis restart", () => {
  it("logs one line when lost and one when all are restored, and prints no unhandled error event", async () => {
    const printed = vi.spyOn(console, "error");
    const logs = captureLogs();
    const connection = openConnection(server.url, { logger: logs.logger, name: "test commands" });
    const other = openConnection(server.url, { logger: logs.logger, name: "test subscriber" });
    const key = `${uniqueKeyPrefix("states")}:key`;
    try {
      await Promise.all([whenReady(connection), whenReady(other)]);
      await connection.set(key, "before");

      await server.kill();
      await logs.waitFor((line) => line.msg === "redis connection lost");
      // Reconnect attempts fail meanwhile: each is an error event, handled.
      const held = connection.get(key);
      await server.restart();
      await logs.waitFor((line) => line.msg === "redis connection restored");
      expect(await held).toBe("before");

      const states = logs.lines.filter((line) => String(line.msg).startsWith("redis connection"));
      expect(states).toEqual([
        expect.objectContaining({
          level: 40,
          msg: "redis connection lost",
          connection: expect.stringMatching(/^test (commands|subscriber)$/),
        }),
        expect.objectContaining({
          level: 40,
          msg: "redis connection restored",
          connection: expect.stringMatching(/^test (commands|subscriber)$/),
          connections: 2,
        }),
      ]);
      const unhandled = printed.mock.calls.filter((args) =>
        String(args[0]).includes("Unhandled error event"),
      );
      expect(unhandled).toEqual([]);
    } finally {
      printed.mockRestore();
      await Promise.all([closeConnection(connection), closeConnection(other)]);
    }
  });
});

describe("connections through Redis restarts in quick succession", () => {
  it(`log at most one loss per ${STATE_LOG_INTERVAL_MS / 1000} s, the next one counting the outages not logged`, async () => {
    const logs = captureLogs();
    const connection = openConnection(server.url, { logger: logs.logger, name: "test commands" });
    const other = openConnection(server.url, { logger: logs.logger, name: "test subscriber" });
    const states = () =>
      logs.lines
        .filter((line) => String(line.msg).startsWith("redis connection"))
        .map((line) => ({ msg: line.msg, outagesNotLogged: line.outagesNotLogged }));
    /** Stops Redis until both connections lost it, starts it again, and resolves once both are back. */
    const outage = async () => {
      const lost = Promise.all(
        [connection, other].map(
          (client) => new Promise((resolve) => client.once("reconnecting", resolve)),
        ),
      );
      await server.kill();
      await lost;
      await server.restart();
      await Promise.all([connection.ping(), other.ping()]);
    };
    try {
      await Promise.all([whenReady(connection), whenReady(other)]);
      // The process's clock stands still unless the test moves it: outages take as
      // long as the machine's load makes them, the interval passes only when told.
      // It starts one interval past the loss the test before logged.
      const startAt = Date.now() + STATE_LOG_INTERVAL_MS;
      vi.useFakeTimers({ toFake: ["Date"], now: startAt });

      await outage();
      expect(states()).toEqual([
        { msg: "redis connection lost", outagesNotLogged: undefined },
        { msg: "redis connection restored", outagesNotLogged: undefined },
      ]);

      // A second outage within the interval: nothing logged, neither loss nor return.
      vi.setSystemTime(startAt + STATE_LOG_INTERVAL_MS - 1);
      await outage();
      expect(states()).toHaveLength(2);

      // Past the interval, the next loss is logged again, counting the one left out.
      vi.setSystemTime(startAt + STATE_LOG_INTERVAL_MS);
      await outage();
      expect(states()).toEqual([
        { msg: "redis connection lost", outagesNotLogged: undefined },
        { msg: "redis connection restored", outagesNotLogged: undefined },
        { msg: "redis connection lost", outagesNotLogged: 1 },
        { msg: "redis connection restored", outagesNotLogged: undefined },
      ]);
    } finally {
      vi.useRealTimers();
      await Promise.all([closeConnection(connection), closeConnection(other)]);
    }
  });
});
