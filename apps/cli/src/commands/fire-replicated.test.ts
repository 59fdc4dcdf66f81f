/**
 * `errand fire` and `errand runs rerun` with replicated durability
 * (`ERRAND_DURABILITY` or `--durability`), on a real Redis that has no
 * replica at first: a run no replica confirmed in time is refused with its
 * runId (`fire`: exit code 3; `runs rerun`: that run not re-run, exit 1);
 * once a replica follows the Redis, firing again with the same idempotency
 * key (the same re-run command) prints that run, deduplicated. Each test
 * starts its replica and stops it after.
 */
import { type RedisServer, startRedis, startReplicaOf, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, GREETER_AGENTS, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-fire-replicated");
let server: RedisServer;
let replica: RedisServer | undefined;
let worker: ErrandProcess;
let collector: ErrandProcess;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  worker = await spawnErrand(
    ["worker", "--agents", GREETER_AGENTS, "--prefix", prefix],
    { REDIS_URL: server.url },
    "worker ready",
  );
  // The re-run's source run is waited for, and a run's result is the collector's to store.
  collector = await spawnErrand(
    ["collector", "--prefix", prefix],
    { REDIS_URL: server.url },
    "collector ready",
  );
}, 120_000);
afterEach(async () => {
  await replica?.stop();
  replica = undefined;
});
afterAll(async () => {
  await worker?.stop();
  await collector?.stop();
  await server?.stop();
});

/** `errand <args>` on the test's Redis and prefix, with `env` beside. */
function errand(args: readonly string[], env: Record<string, string> = {}) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url, ...env } });
}

/** `errand fire greeter` with `args`. */
function fireGreeter(args: readonly string[], env: Record<string, string> = {}) {
  return errand(["fire", "greeter", "--input", '"Ada"', ...args], env);
}

describe("the commands that fire runs, with replicated durability", () => {
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

  it("runs rerun: a re-run no replica confirmed is not re-run, naming its run; the same command answers that run once a replica has it", async () => {
    const source = await fireGreeter(["--wait", "--json"]);
    expect(source.code, source.stderr).toBe(0);
    const sourceRunId: string = JSON.parse(source.stdout).runId;
    const rerun = ["runs", "rerun", "--run", sourceRunId, "--json"];

    const refused = await errand([...rerun, "--durability", "replicated"]);
    expect(refused.code, refused.stderr).toBe(1);
    const [item] = JSON.parse(refused.stdout).results;
    expect(item).toMatchObject({
      sourceRunId,
      ok: false,
      retryable: true,
      error: { code: "redis_unavailable" },
    });
    expect(item.error.message).toContain(`run ${item.runId} was fired but is not confirmed`);

    replica = await startReplicaOf(server);
    const again = await errand(rerun, { ERRAND_DURABILITY: "replicated" });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).results).toEqual([
      expect.objectContaining({ sourceRunId, ok: true, runId: item.runId, deduplicated: true }),
    ]);
  }, 120_000);
});
