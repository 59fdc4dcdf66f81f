/**
 * A fleet on one Redis and one prefix, default options: two `errand worker`
 * processes with disjoint agents, a collector, and 200 runs of each agent
 * fired interleaved. Every run goes to the queue of the workers that run its
 * agent: all succeed at their first attempt, no job fails, and each worker
 * ran only its own agent's runs.
 */
import { createErrand, type Errand } from "@errand/engine";
import { queueOfAgents, readQueueBacklog } from "@errand/engine/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ErrandProcess,
  FIXTURE_AGENTS,
  fixtureQueue,
  GREETER_AGENTS,
  spawnErrand,
} from "../test-support/processes.js";

const RUNS_PER_AGENT = 200;
const prefix = uniqueKeyPrefix("cli-fleet");
let server: RedisServer;
let errand: Errand;
const processes: ErrandProcess[] = [];

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  errand = createErrand({ connection: server.url, prefix });
});
afterAll(async () => {
  for (const process of processes) await process.stop();
  await errand?.close();
  await server?.stop();
});

const cityScript = (n: number) => ({
  script: [{ call: [{ tool: "structured_output", args: { city: `c${n}`, population: n } }] }],
});
const citySchema = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"],
  additionalProperties: false,
};

describe("two workers with different agents on one Redis and prefix", () => {
  it("run every run on a worker that has its agent: 2 × 200 interleaved runs, all succeed at once", async () => {
    const env = { REDIS_URL: server.url };
    const args = ["--prefix", prefix, "--concurrency", "8"];
    processes.push(
      await spawnErrand(["worker", "--agents", FIXTURE_AGENTS, ...args], env, "worker ready"),
      await spawnErrand(["worker", "--agents", GREETER_AGENTS, ...args], env, "worker ready"),
      await spawnErrand(["collector", "--prefix", prefix], env, "collector ready"),
    );
    const specs = Array.from({ length: RUNS_PER_AGENT }, (_, n) => [
      { agent: "scripted-city", input: cityScript(n), outputSchema: citySchema },
      { agent: "greeter", input: { name: `p${n}` } },
    ]).flat();
    const fired = await errand.fireMany(specs);
    expect(fired).toMatchObject({ total: 2 * RUNS_PER_AGENT, failed: 0 });
    const runIds = fired.results.map((result) => result.runId!);

    const results = await Promise.all(
      runIds.map((runId) => errand.result(runId, { waitMs: 60_000 })),
    );
    expect(results.filter((result) => result?.status !== "succeeded")).toEqual([]);
    expect(results.every((result) => result?.attempts === 1)).toBe(true);
    expect(results.filter((result) => result?.agent === "greeter").map((r) => r?.text)).toEqual(
      Array(RUNS_PER_AGENT).fill("Hello!"),
    );

    // Each queue held only its own agent's jobs, and none failed or was retried.
    const redis = new Redis(server.url, { maxRetriesPerRequest: null });
    try {
      for (const name of [fixtureQueue(prefix), queueOfAgents(prefix, ["greeter"])]) {
        expect(await readQueueBacklog(redis, errand.keys, name)).toEqual({
          queue: name,
          waiting: 0,
          active: 0,
          delayed: 0,
          failed: 0,
          byAgent: {},
          shards: [{ waiting: 0, active: 0, delayed: 0, failed: 0 }],
        });
      }
    } finally {
      redis.disconnect();
    }
    const [cityWorker, greeterWorker] = processes;
    expect(cityWorker!.output()).not.toContain("does not run agent");
    expect(greeterWorker!.output()).not.toContain("does not run agent");
  });
});
