/**
 * A coalesced connection writes each command as one Buffer of errand's
 * encoding, and every command still gets its own reply: those issued while
 * it connects (ioredis' offline queue), scripts (EVAL the first time on a
 * socket, EVALSHA after, EVAL again after a NOSCRIPT), pipelines, `multi`,
 * multi-byte, empty and large values, and the commands of a connection lost
 * and restored. Counted on a private Redis's command statistics. A
 * connection not coalesced, and each duplicate of one (as BullMQ makes for
 * its blocking reads), encodes its commands too.
 */
import { uniqueKeyPrefix } from "@errand/testing";
import type { ChainableCommander, Redis } from "ioredis";
import { afterEach, describe, expect, vi } from "vitest";
import { createLogger } from "../logger.js";
import { redisTest as it } from "../test-support/engine-test.js";
import { openConnection, whenReady } from "./connection.js";

/** A script whose reply shows each argument it was given, as Redis read it. */
const ECHO_LUA = "return {KEYS[1], ARGV[1], ARGV[2]}";

/** An argument of `echoArgs`. */
type EchoArgument = string | Buffer | number;

/** A coalesced connection with the script `echoArgs` (one key, two arguments). */
interface EchoConnection extends Redis {
  echoArgs(key: string, first: EchoArgument, second: EchoArgument): Promise<string[]>;
}

/** A pipeline of an {@link EchoConnection}. */
interface EchoPipeline extends ChainableCommander {
  echoArgs(key: string, first: EchoArgument, second: EchoArgument): ChainableCommander;
}

/** How many times Redis ran each of EVAL and EVALSHA since `CONFIG RESETSTAT`. */
async function scriptCalls(redis: Redis): Promise<{ eval: number; evalsha: number }> {
  const stats = await redis.info("commandstats");
  const calls = (command: string) =>
    Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { eval: calls("eval"), evalsha: calls("evalsha") };
}

/** Opens a coalesced connection to `url` with the script `echoArgs`, not yet connected. */
function openEchoConnection(url: string): EchoConnection {
  const connection = openConnection(url, {
    logger: createLogger({ level: "silent" }),
    name: "encoded",
    coalesceWrites: true,
  }) as EchoConnection;
  connection.defineCommand("echoArgs", { numberOfKeys: 1, lua: ECHO_LUA });
  return connection;
}

describe("a coalesced connection's commands, each one Buffer", () => {
  let connection: EchoConnection | undefined;
  afterEach(() => connection?.disconnect());

  it("answers what was issued while connecting, scripts, pipelines and multi, each written as a Buffer", async ({
    engineRedis,
  }) => {
    const key = uniqueKeyPrefix("command-buffers");
    await engineRedis.redis.config("RESETSTAT");
    connection = openEchoConnection(engineRedis.url);
    const unicode = "é€😀 ✓";
    const large = "ü".repeat(300_000);
    // Issued while connecting: queued offline, written once ready.
    const offline = [
      connection.set(`${key}:unicode`, unicode),
      connection.echoArgs(`${key}:script`, "", 42),
    ];
    expect(connection.status).not.toBe("ready");
    await whenReady(connection);
    const written = vi.spyOn(connection.stream, "write");
    expect(await Promise.all(offline)).toEqual(["OK", [`${key}:script`, "", "42"]]);

    const bytes = Buffer.from([0, 255, 13, 10, 36]);
    expect(
      await (connection.pipeline() as EchoPipeline)
        .echoArgs(`${key}:script`, unicode, "")
        .set(`${key}:bytes`, bytes)
        .getBuffer(`${key}:bytes`)
        .set(`${key}:large`, large)
        .strlen(`${key}:large`)
        .exec(),
    ).toEqual([
      [null, [`${key}:script`, unicode, ""]],
      [null, "OK"],
      [null, bytes],
      [null, "OK"],
      [null, Buffer.byteLength(large)],
    ]);
    expect(
      await connection.multi().incr(`${key}:n`).incrby(`${key}:n`, 5).get(`${key}:unicode`).exec(),
    ).toEqual([
      [null, 1],
      [null, 6],
      [null, unicode],
    ]);
    expect(await connection.echoArgs(`${key}:script`, bytes, "third")).toEqual([
      `${key}:script`,
      bytes.toString(),
      "third",
    ]);
    // The script's first call on this socket was an EVAL, each after an EVALSHA.
    expect(await scriptCalls(engineRedis.redis)).toEqual({ eval: 1, evalsha: 2 });

    // Forgotten by Redis: the NOSCRIPT is answered by an EVAL, as ioredis does.
    await engineRedis.redis.script("FLUSH");
    expect(await connection.echoArgs(`${key}:script`, "after", "flush")).toEqual([
      `${key}:script`,
      "after",
      "flush",
    ]);
    expect(await scriptCalls(engineRedis.redis)).toEqual({ eval: 2, evalsha: 3 });

    expect(written.mock.calls.length).toBeGreaterThan(0);
    for (const [chunk] of written.mock.calls) expect(chunk).toBeInstanceOf(Buffer);
  });

  it("sends again the commands of a lost connection, and its scripts as EVAL on the new socket", async ({
    engineRedis,
  }) => {
    const key = uniqueKeyPrefix("command-buffers");
    connection = openEchoConnection(engineRedis.url);
    await whenReady(connection);
    expect(await connection.echoArgs(`${key}:script`, "before", "loss")).toEqual([
      `${key}:script`,
      "before",
      "loss",
    ]);
    await engineRedis.redis.config("RESETSTAT");
    const lost = connection.stream;
    const answers = [
      connection.echoArgs(`${key}:script`, "lost", "é"),
      connection.set(`${key}:lost`, "€"),
      connection.get(`${key}:lost`),
    ];
    lost.destroy();
    expect(await Promise.all(answers)).toEqual([[`${key}:script`, "lost", "é"], "OK", "€"]);
    expect(connection.stream).not.toBe(lost);
    expect(await connection.echoArgs(`${key}:script`, "after", "")).toEqual([
      `${key}:script`,
      "after",
      "",
    ]);
    const calls = await scriptCalls(engineRedis.redis);
    // On the new socket the script went once as EVAL, then as EVALSHA; the lost socket's write may not have reached Redis.
    expect(calls.eval).toBe(1);
    expect(calls.evalsha).toBeGreaterThanOrEqual(1);
    expect(calls.evalsha).toBeLessThanOrEqual(2);
  });
});

describe("a connection not coalesced, and a duplicate of one", () => {
  it("writes each command as one Buffer, and its blocking read is answered", async ({
    engineRedis,
  }) => {
    const key = uniqueKeyPrefix("command-buffers");
    const connection = openConnection(engineRedis.url, {
      logger: createLogger({ level: "silent" }),
      name: "encoded, not coalesced",
    }) as Redis;
    const blocking = connection.duplicate();
    try {
      await Promise.all([whenReady(connection), whenReady(blocking)]);
      const writes = [vi.spyOn(connection.stream, "write"), vi.spyOn(blocking.stream, "write")];
      const popped = blocking.blpop(`${key}:list`, 30);
      // The pop is written before the push is sent: Redis answers it from the push alone.
      await vi.waitFor(() => expect(writes[1]?.mock.calls.length).toBe(1), { timeout: 30_000 });
      expect(await connection.rpush(`${key}:list`, "é€")).toBe(1);
      expect(await popped).toEqual([`${key}:list`, "é€"]);
      for (const written of writes) {
        expect(written.mock.calls.length).toBeGreaterThan(0);
        for (const [chunk] of written.mock.calls) expect(chunk).toBeInstanceOf(Buffer);
      }
    } finally {
      blocking.disconnect();
      connection.disconnect();
    }
  });
});
