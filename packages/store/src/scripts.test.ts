import { randomBytes } from "node:crypto";
import { isErrandError, newRunId } from "@errand/core";
import { shardOfRunId } from "@errand/core/ops";
import { uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeEventArgs } from "./codec.js";
import { errorFromScriptReply, SCRIPT_CODES } from "./errors.js";
import { type StoreKeys, storeKeys } from "./keys.js";
import { defineStoreScripts, type StoreScripts } from "./scripts.js";
import { newEvent, queued } from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let scripts: StoreScripts;
let keys: StoreKeys;

beforeAll(async () => {
  fx = await startRedisFixture();
  scripts = defineStoreScripts(fx.redis);
  keys = storeKeys(uniqueKeyPrefix("store-scripts"));
});
afterAll(async () => {
  await fx?.stop();
});

function appendKeys(runId: string): string[] {
  return [
    keys.runLog(runId),
    keys.runHead(runId),
    keys.shardEvents(shardOfRunId(runId)),
    keys.runBlobs(runId),
    keys.runLogRewrite(runId),
    keys.runIndexByStatus(0, "active"),
    keys.deadlines(0),
    keys.runIndexByAgent(0, "researcher"),
    keys.runIndexByTenant(0, ""),
    keys.runIndexByStatus(0, "succeeded"),
    keys.runIndexByStatus(0, "failed"),
    keys.runIndexByStatus(0, "cancelled"),
    keys.children(runId),
  ];
}

describe("the append script", () => {
  it("answers malformed arguments with its malformed code and writes nothing", async () => {
    const runId = newRunId({ shard: 0, nowMs: Date.now(), random: randomBytes(10) });
    const event = encodeEventArgs(queued());
    const started = encodeEventArgs(newEvent("run-started", { attempt: 1, workerId: "w" }));
    const malformed: string[][] = [
      [runId, "0 0 0 1   ", ...event],
      [runId, "0 1.5 0 1   ", ...event],
      [runId, "0 60 0 1   "],
      [runId, "0 60 0 1   ", ...event, "run-started"],
      [runId, "zero 60 0 1   ", ...event],
      [runId, "0 60 0 1 member soon ", ...event],
      [runId, "0 60 0 1   soon", ...event],
      [runId, "0 60 0 1   ", "run-queued", event[1], "{not json"],
      [runId, "0 60 0 1   ", ...event, started[0], started[1], "{}"],
      // The fixed arguments not as seven words: one too few, one too many, or as arguments of their own.
      [runId, "0 60 0 1  ", ...event],
      [runId, "0 60 0 1    ", ...event],
      [runId, "0", "60", "0", "1", "", "", "", ...event],
    ];
    const idempotencyKey = keys.idempotency(0, "digest");
    const keyed = [...appendKeys(runId), idempotencyKey];
    // With an idempotency key: a TTL that is not a whole number of ms, or no run-queued.
    const malformedKeyed: string[][] = [
      [runId, "0 60 0 1   ", ...event],
      [runId, "0 60 2.5 1   ", ...event],
      [runId, "0 60 1000 1   ", ...started],
    ];
    const calls = [
      ...malformed.map((args) => ({ keys: appendKeys(runId), args })),
      ...malformedKeyed.map((args) => ({ keys: keyed, args })),
    ];
    for (const call of calls) {
      const reply = await scripts.append(call.keys, call.args);
      expect(reply[0]).toBe(SCRIPT_CODES.malformedArguments);
      expect(isErrandError(errorFromScriptReply(reply, { runId }), "internal")).toBe(true);
    }
    expect(await fx.redis.exists(...keyed)).toBe(0);
  });
});
