import { describe, expect, it } from "vitest";
import { untakenQueueShards } from "./untaken-queue-shards.js";

describe("untakenQueueShards", () => {
  it("lists each shard of a queue that none of its live workers takes", () => {
    expect(
      untakenQueueShards([
        { queues: ["errand.b~4"], queueShards: [3] },
        { queues: ["errand.a~3"], queueShards: [0] },
        { queues: ["errand.a~3"], queueShards: [0, 1] },
      ]),
    ).toEqual([
      { queue: "errand.a~3", shard: 2, shards: 3 },
      { queue: "errand.b~4", shard: 0, shards: 4 },
      { queue: "errand.b~4", shard: 1, shards: 4 },
      { queue: "errand.b~4", shard: 2, shards: 4 },
    ]);
  });

  it("counts a heartbeat without queueShards (an older worker) as taking every shard", () => {
    expect(
      untakenQueueShards([
        { queues: ["errand.a~3"], queueShards: [1] },
        { queues: ["errand.a~3"] },
        { queues: ["errand.single"], queueShards: [0] },
      ]),
    ).toEqual([]);
  });
});
