import { createEventStore } from "@errand/store";
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineKeys } from "../engine-keys.js";
import { createRunReads } from "../reads/create-run-reads.js";
import { createCollector } from "./create-collector.js";
import {
  expectedCollectedState,
  readCollectedState,
  waitUntilCollected,
} from "./test-support/collected-state.js";
import { planRuns, settlingRunIds, writeRuns } from "./test-support/planned-runs.js";
import { TEST_SHARDS } from "./test-support/redis-fixture.js";

let cluster: RedisClusterServer;
let client: Cluster;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  client = new Cluster(cluster.nodes);
});
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

describe("the collector and the reads on a 3-node Redis Cluster", () => {
  it("collect, announce, index and wait across the shards' slots", async () => {
    const prefix = uniqueKeyPrefix("cluster-collect");
    const keys = engineKeys(prefix);
    const store = createEventStore({ redis: client, prefix, shards: TEST_SHARDS });
    const runs = planRuns({ count: 24, shards: TEST_SHARDS, parents: 3, seed: "cluster" });
    const settling = settlingRunIds(runs);

    const collector = createCollector({
      connection: client,
      prefix,
      shards: TEST_SHARDS,
      blockMs: 100,
      reaper: { intervalMs: 100 },
    });
    const reads = createRunReads({ connection: client, prefix, shards: TEST_SHARDS });
    await collector.start();
    try {
      const waiting = reads.collect(settling, { waitMs: 30_000 });
      await writeRuns(store, runs);
      const batch = await waiting;
      expect(batch.pending).toBe(0);
      expect(batch.total).toBe(settling.length);

      await waitUntilCollected(client, keys, settling, TEST_SHARDS);
      const state = await readCollectedState(client, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedCollectedState(store, runs));
      expect((await reads.list({ limit: 500 })).count).toBe(runs.length);
      expect((await collector.metrics()).pending).toBe(0);
    } finally {
      await reads.close();
      await collector.stop();
    }
  });
});
