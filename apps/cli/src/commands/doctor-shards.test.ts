/**
 * `errand doctor` names a queue shard that no live worker takes: real
 * `errand worker` processes, each taking a subset of a 3-shard queue
 * (`--take-queue-shards`), on a real Redis. The check passes once a worker
 * takes the last shard.
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorCheck } from "../doctor/check.js";
import {
  type ErrandProcess,
  FIXTURE_AGENTS,
  fixtureQueue,
  spawnErrand,
} from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

/** The doctor's "queue shards taken" check, and its exit code. */
async function shardCheck(url: string, prefix: string) {
  const outcome = await runErrand(["doctor", "--prefix", prefix, "--json"], {
    env: { REDIS_URL: url },
  });
  const report = JSON.parse(outcome.stdout) as { checks: DoctorCheck[] };
  return {
    code: outcome.code,
    check: report.checks.find((check) => check.name === "queue shards taken"),
  };
}

describe("errand doctor with workers taking a subset of a queue's shards", () => {
  let server: RedisServer;
  const workers: ErrandProcess[] = [];
  const prefix = uniqueKeyPrefix("cli-doctor-shards");

  /** Starts a worker of the fixture agents' 3-shard queue taking `shards`. */
  async function startWorker(shards: string) {
    const args = ["worker", "--agents", FIXTURE_AGENTS, "--prefix", prefix, "--queue-shards", "3"];
    workers.push(
      await spawnErrand(
        [...args, "--take-queue-shards", shards],
        { REDIS_URL: server.url },
        "worker ready",
      ),
    );
  }

  beforeAll(async () => {
    server = await startRedis({ maxmemoryPolicy: "noeviction" });
    await startWorker("0");
    await startWorker("1");
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await server?.stop();
  });

  it("names the shard no worker takes, with the worker that would take it", async () => {
    const { code, check } = await shardCheck(server.url, prefix);
    expect(code).toBe(1);
    expect(check?.ok).toBe(false);
    expect(check?.detail).toBe(
      `shard 2 of queue ${fixtureQueue(prefix, 3)} has no worker: its runs wait`,
    );
    expect(check?.fix).toContain("--queue-shards 3 --take-queue-shards 2");
  });

  it("passes once a worker takes the last shard", async () => {
    await startWorker("2");
    const { check } = await shardCheck(server.url, prefix);
    expect(check).toMatchObject({ ok: true });
    expect(check?.detail).toContain("every shard of the 1 queues with a live worker is taken");
  });
});
