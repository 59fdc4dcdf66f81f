import { createEventStore } from "@errand/store";
import { uniqueKeyPrefix } from "@errand/testing";
import { describe, expect, it } from "vitest";
import { engineKeys } from "../engine-keys.js";
import { createRunReads } from "../reads/create-run-reads.js";
import { useRedisCluster } from "../test-support/cluster-fixture.js";
import { createCollector } from "./create-collector.js";
import {
  expectedIndexedState,
  readIndexedState,
  waitUntilIndexed,
} from "./test-support/indexed-state.js";
import { planRuns, settlingRunIds, writeRuns } from "./test-support/planned-runs.js";
import { TEST_SHARDS } from "./test-support/redis-fixture.js";

const fx = useRedisCluster();

describe("the collector and the reads on a 3-node Redis Cluster", () => {
  it("collect, announce, index and wait across the shards' slots", async () => {
    const prefix = uniqueKeyPrefix("cluster-collect");
    const keys = engineKeys(prefix);
    const store = createEventStore({ redis: fx.client, prefix, shards: TEST_SHARDS });
    const runs = planRuns({ count: 24, shards: TEST_SHARDS, parents: 3, seed: "cluster" });
    const settling = settlingRunIds(runs);

    const collector = createCollector({
      connection: fx.client,
      prefix,
      shards: TEST_SHARDS,
      blockMs: 100,
      reaper: { intervalMs: 100 },
    });
    const reads = createRunReads({ connection: fx.client, prefix, shards: TEST_SHARDS });
    await collector.start();
    try {
      const waiting = reads.collect(settling, { waitMs: 30_000 });
      await writeRuns(store, runs);
      const batch = await waiting;
      expect(batch.pending).toBe(0);
      expect(batch.total).toBe(settling.length);

      await waitUntilIndexed(fx.client, keys, settling, TEST_SHARDS);
      const state = await readIndexedState(fx.client, keys, runs, TEST_SHARDS);
      expect(state).toEqual(await expectedIndexedState(store, runs));
      expect((await reads.list({ limit: 500 })).count).toBe(runs.length);
      expect((await collector.metrics()).pending).toBe(0);
    } finally {
      await reads.close();
      await collector.stop();
    }
  });
});
