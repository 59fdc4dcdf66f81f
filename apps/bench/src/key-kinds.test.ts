import { newRunId } from "@errand/core";
import { describe, expect, it } from "vitest";
import { bytesPerRunByKind, keyKindOf } from "./key-kinds.js";

describe("keyKindOf", () => {
  it("tells each key of a run, of its shard and of BullMQ apart", () => {
    const runId = newRunId({ shard: 3, nowMs: 1, random: new Uint8Array(10) });
    const run = `errand:{s3}:run:${runId}`;
    expect(keyKindOf(`${run}:log`)).toBe("runLog");
    expect(keyKindOf(run)).toBe("runHead");
    expect(keyKindOf(`${run}:blobs`)).toBe("runBlobs");
    expect(keyKindOf(`errand:{s3}:result:${runId}`)).toBe("result");
    expect(keyKindOf(`errand:{s3}:children:${runId}`)).toBe("children");
    expect(keyKindOf("errand:{s3}:idempotency:BHEbiUmb2sJr2i-gIoBxRHNCEbSZw_Rywg5HAgAABww")).toBe(
      "idempotency",
    );
    expect(keyKindOf("errand:{s3}:index:runs")).toBe("runIndexes");
    expect(keyKindOf("errand:{s3}:index:status:succeeded")).toBe("runIndexes");
    expect(keyKindOf("errand:{s3}:index:agent:bench-echo")).toBe("runIndexes");
    expect(keyKindOf("errand:{s3}:deadlines")).toBe("deadlines");
    expect(keyKindOf("errand:{s3}:events")).toBe("shardStreams");
    expect(keyKindOf(`errand:{queue}:errand.bench-echo:${runId}`)).toBe("bullmqJobs");
    expect(keyKindOf("errand:{queue}:errand.bench-echo:events")).toBe("bullmqEvents");
    expect(keyKindOf("errand:{queue}:errand.bench-echo:completed")).toBe("bullmqOther");
    expect(keyKindOf("errand:registry:queues")).toBe("registryAndOther");
  });
});

describe("bytesPerRunByKind", () => {
  it("gives each kind's growth per run and what no key accounts for", () => {
    const before = { bytes: { runLog: 100, runIndexes: 50 }, keys: 2 };
    const after = { bytes: { runLog: 1_100, runHead: 400, runIndexes: 50 }, keys: 7 };
    expect(bytesPerRunByKind(before, after, 1_600, 2)).toEqual({
      runLog: 500,
      runHead: 200,
      unattributed: 100,
    });
  });
});
