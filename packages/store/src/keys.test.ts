import { isErrandError, newRunId } from "@errand/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_KEY_PREFIX, shardTag, storeKeys } from "./keys.js";

const runId = newRunId({ shard: 3, nowMs: 1_767_225_600_000, random: new Uint8Array(10) });

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("storeKeys", () => {
  it("lays keys out as docs/architecture/redis-layout.md says, with the shard from the runId", () => {
    const keys = storeKeys();
    expect(keys.prefix).toBe(DEFAULT_KEY_PREFIX);
    expect(keys.runLog(runId)).toBe(`errand:{s3}:run:${runId}:log`);
    expect(keys.runHead(runId)).toBe(`errand:{s3}:run:${runId}`);
    expect(keys.runBlobs(runId)).toBe(`errand:{s3}:run:${runId}:blobs`);
    expect(keys.runLogRewrite(runId)).toBe(`errand:{s3}:run:${runId}:log:rewrite`);
    expect(keys.runLive(runId)).toBe(`errand:{s3}:live:${runId}`);
    expect(keys.shardEvents(3)).toBe("errand:{s3}:events");
    expect(keys.result(runId)).toBe(`errand:{s3}:result:${runId}`);
    expect(storeKeys("t-app").runLog(runId)).toBe(`t-app:{s3}:run:${runId}:log`);
  });

  it("gives every key of a run one hash tag: its shard's", () => {
    const keys = storeKeys("p");
    const runKeys = [
      keys.runLog,
      keys.runHead,
      keys.runBlobs,
      keys.runLogRewrite,
      keys.runLive,
      keys.result,
    ].map((key) => key(runId));
    for (const key of [...runKeys, keys.shardEvents(3)]) {
      expect(key.match(/\{[^}]*\}/g)).toEqual([shardTag(3)]);
    }
  });

  it("refuses a prefix that would break the hash tag, a malformed runId and a shard out of range", () => {
    for (const prefix of ["", "a{b", "a}b"]) {
      expect(
        isErrandError(
          thrownBy(() => storeKeys(prefix)),
          "invalid_spec",
        ),
      ).toBe(true);
    }
    const keys = storeKeys();
    expect(
      isErrandError(
        thrownBy(() => keys.runLog("42")),
        "invalid_spec",
      ),
    ).toBe(true);
    for (const shard of [-1, 1.5, 1024]) {
      expect(
        isErrandError(
          thrownBy(() => keys.shardEvents(shard)),
          "invalid_spec",
        ),
      ).toBe(true);
    }
  });

  it("names each run's and each shard's keys alike however the calls interleave (the keys kept are never another's)", () => {
    const keys = storeKeys();
    const other = newRunId({ shard: 5, nowMs: 1_767_225_600_001, random: new Uint8Array(10) });
    expect([keys.runLog(runId), keys.runHead(other), keys.runBlobs(runId)]).toEqual([
      `errand:{s3}:run:${runId}:log`,
      `errand:{s5}:run:${other}`,
      `errand:{s3}:run:${runId}:blobs`,
    ]);
    expect([
      keys.runIndexByStatus(3, "active"),
      keys.runIndexByStatus(5, "failed"),
      keys.runIndexByAgent(3, ""),
      keys.runIndexByAgent(3, "a"),
      keys.runIndexByTenant(5, ""),
      keys.runIndexByTenant(5, "t"),
      keys.deadlines(5),
      keys.settledChannel(3),
      keys.runIndex(3),
      storeKeys("p").shardEvents(3),
    ]).toEqual([
      "errand:{s3}:index:status:active",
      "errand:{s5}:index:status:failed",
      "errand:{s3}:index:agent:",
      "errand:{s3}:index:agent:a",
      "errand:{s5}:index:tenant:",
      "errand:{s5}:index:tenant:t",
      "errand:{s5}:deadlines",
      "errand:{s3}:settled",
      "errand:{s3}:index:runs",
      "p:{s3}:events",
    ]);
    expect(thrownBy(() => keys.runHead("42"))).toBeDefined();
    expect(keys.runHead(runId)).toBe(`errand:{s3}:run:${runId}`);
  });
});
