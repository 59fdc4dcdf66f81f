import { isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { engineKeys } from "../engine-keys.js";
import { queueOfAgents } from "../queues/agent-queues.js";
import { takeShards } from "./shard-slots.js";

const keys = engineKeys("slots");
const queue = queueOfAgents("slots", ["a"], 3);
const slotsOf = (options: Parameters<typeof takeShards>[2]) =>
  takeShards(keys, queue, options).map(({ shard, slots }) => [shard.shard, slots]);

describe("a worker's slots over the queue shards it takes", () => {
  it("splits its concurrency as evenly as it goes, never more in all", () => {
    expect(slotsOf({ concurrency: 8 })).toEqual([
      [0, 3],
      [1, 3],
      [2, 2],
    ]);
    expect(slotsOf({ concurrency: 3 })).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    expect(slotsOf({ concurrency: 5, takeQueueShards: [2, 0] })).toEqual([
      [0, 3],
      [2, 2],
    ]);
  });

  it("takes one slot per shard when not told its concurrency", () => {
    expect(slotsOf({})).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    expect(takeShards(keys, queueOfAgents("slots", ["a"]), {})).toHaveLength(1);
  });

  it("refuses fewer slots than shards, a shard the queue lacks, and no shard", () => {
    for (const options of [{ concurrency: 2 }, { takeQueueShards: [3] }, { takeQueueShards: [] }]) {
      let refused: unknown;
      try {
        takeShards(keys, queue, options);
      } catch (error) {
        refused = error;
      }
      expect(isErrandError(refused) && refused.code === "invalid_spec").toBe(true);
    }
  });
});
