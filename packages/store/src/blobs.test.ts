import { createHash } from "node:crypto";
import { isErrandError } from "@errand/core";
import { blobUri } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "./event-store.js";
import { queued } from "./test-support/events.js";
import { type RedisFixture, startRedisFixture } from "./test-support/redis.js";

let fx: RedisFixture;
let store: EventStore;

beforeAll(async () => {
  fx = await startRedisFixture();
  store = fx.store("blobs");
});
afterAll(async () => {
  await fx?.stop();
});

function sha256(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

describe("putBlob and getBlob", () => {
  it("round-trips values under numbered references with their size and sha256", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    const first = "Grüße aus der Röhre ✓\n".repeat(500);
    const second = JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => ({ i })) });

    const firstRef = await store.putBlob(runId, first, "text/plain; charset=utf-8");
    const secondRef = await store.putBlob(runId, second, "application/json");
    expect(firstRef).toEqual({
      ref: blobUri(runId, 0),
      contentType: "text/plain; charset=utf-8",
      sizeBytes: Buffer.byteLength(first, "utf8"),
      sha256: sha256(first),
    });
    expect(firstRef.sizeBytes).toBeGreaterThan(first.length);
    expect(secondRef.ref).toBe(blobUri(runId, 1));

    const byRef = await store.getBlob(firstRef);
    expect(byRef).toEqual({ value: first, ref: firstRef });
    expect(sha256(byRef!.value)).toBe(byRef!.ref.sha256);
    expect(await store.getBlob(secondRef.ref)).toEqual({ value: second, ref: secondRef });
  });

  it("finds nothing under a number never stored, and refuses a run that does not exist", async () => {
    const runId = store.newRunId();
    await store.appendEvents(runId, 0, [queued()]);
    expect(await store.getBlob(blobUri(runId, 7))).toBeUndefined();
    const notABlob = await store
      .getBlob(`resource://runs/${runId}/files/1`)
      .catch((e: unknown) => e);
    expect(isErrandError(notABlob, "invalid_spec")).toBe(true);

    const unknown = store.newRunId();
    const error = await store
      .putBlob(unknown, "x", "text/plain")
      .catch((caught: unknown) => caught);
    expect(isErrandError(error, "not_found")).toBe(true);
    expect(await fx.redis.exists(store.keys.runBlobs(unknown))).toBe(0);
  });
});
