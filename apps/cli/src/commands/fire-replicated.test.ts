/**
 * `errand fire` with replicated durability (`ERRAND_DURABILITY` or
 * `--durability`), on a real Redis that has no replica at first: a run no
 * replica confirmed in time is refused with exit code 3 and its runId; once
 * a replica follows the Redis, firing again with the same idempotency key
 * prints that run, deduplicated.
 */
import { fileURLToPath } from "node:url";
import { type RedisServer, startRedis, startReplicaOf, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const GREETER_AGENTS = fileURLToPath(
  new URL("../test-support/greeter-agents.mjs", import.meta.url),
);
const prefix = uniqueKeyPrefix("cli-fire-replicated");
let server: RedisServer;
let replica: RedisServer | undefined;
let worker: ErrandProcess;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  worker = await spawnErrand(
    ["worker", "--agents", GREETER_AGENTS, "--prefix", prefix],
    { REDIS_URL: server.url },
    "worker ready",
  );
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await replica?.stop();
  await server?.stop();
});

/** `errand fire greeter` with `args`, on the test's Redis and prefix, with `env` beside. */
function fireGreeter(args: readonly string[], env: Record<string, string> = {}) {
  return runErrand(["fire", "greeter", "--input", '"Ada"', ...args, "--prefix", prefix], {
    env: { REDIS_URL: server.url, ...env },
  });
}

describe("errand fire with replicated durability", () => {
  it("refuses a run no replica confirmed, naming it, and prints that run once a replica has it", async () => {
    const key = ["--idempotency-key", "replicated-cli", "--json"];
    const refused = await fireGreeter(key, { ERRAND_DURABILITY: "replicated" });
    expect(refused.code, refused.stderr).toBe(3);
    const runId = /run (\S+) was fired but is not confirmed on a replica/.exec(refused.stderr)?.[1];
    expect(runId, refused.stderr).toBeDefined();
    expect(refused.stderr).toContain("Fire it again with the same idempotency key");

    replica = await startReplicaOf(server);
    const again = await fireGreeter([...key, "--durability", "replicated"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ runId, deduplicated: true });
  }, 120_000);
});
