/**
 * `errand up --durability` on a real Redis that has no replica at first:
 * acknowledged (the default) settles runs as ever; replicated makes its
 * worker's settling append wait for a replica, so with none the run's job
 * fails saying so (its result stands, unconfirmed), as `errand worker`'s
 * does, and once a replica follows the Redis a run settles with no such
 * failure. Each `up` runs the greeter under a prefix of its own.
 */
import { RunResult } from "@errand/core";
import {
  type RedisServer,
  startRedis,
  startReplicaOf,
  uniqueKeyPrefix,
  waitUntil,
} from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, GREETER_AGENTS, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const NOT_REPLICATED = "no replica acknowledged the append";

let server: RedisServer;
let replica: RedisServer | undefined;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
}, 60_000);
afterAll(async () => {
  await replica?.stop();
  await server?.stop();
});

/** `errand up` running the greeter on the test's Redis under `prefix`, with `args`. */
function up(prefix: string, args: readonly string[]): Promise<ErrandProcess> {
  return spawnErrand(
    ["up", "--agents", GREETER_AGENTS, "--no-dashboard", "--prefix", prefix, ...args],
    { REDIS_URL: server.url },
    "Ctrl-C to stop.",
  );
}

/** Fires the greeter under `prefix` and waits for its result. */
async function greet(prefix: string): Promise<RunResult> {
  const fired = await runErrand(
    ["fire", "greeter", "--input", '"Ada"', "--wait", "--json", "--prefix", prefix],
    { env: { REDIS_URL: server.url } },
  );
  expect(fired.code, fired.stderr).toBe(0);
  return RunResult.parse(JSON.parse(fired.stdout));
}

describe("errand up --durability", () => {
  it("acknowledged: runs settle on a Redis without a replica", async () => {
    const prefix = uniqueKeyPrefix("cli-up-acknowledged");
    const local = await up(prefix, ["--durability", "acknowledged"]);
    try {
      expect((await greet(prefix)).status).toBe("succeeded");
    } finally {
      expect(await local.stop()).toBe(0);
    }
    expect(local.output()).not.toContain(NOT_REPLICATED);
  }, 120_000);

  it("replicated: a settling append no replica confirmed fails its job, saying so; with a replica it does not", async () => {
    const prefix = uniqueKeyPrefix("cli-up-replicated");
    const local = await up(prefix, ["--durability", "replicated"]);
    try {
      const unconfirmed = await greet(prefix);
      const failed = await waitUntil(
        () => local.output().includes(`run:${unconfirmed.runId}:log within`) || undefined,
        { timeoutMs: 60_000 },
      );
      expect(failed, local.output()).toBe(true);
      expect(local.output()).toContain(NOT_REPLICATED);

      replica = await startReplicaOf(server);
      const confirmed = await greet(prefix);
      expect(confirmed.status).toBe("succeeded");
      // Stopped, the worker has finished the run's job: a failure would be printed by now.
      expect(await local.stop()).toBe(0);
      expect(local.output()).not.toContain(`run:${confirmed.runId}:log within`);
    } finally {
      await local.stop();
    }
  }, 120_000);
});
