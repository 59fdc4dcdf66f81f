import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blobUri, parseBlobUri } from "./blob-uri.js";
import { isErrandError } from "./errors.js";
import { ResourceRef } from "./events.js";
import { newRunId } from "./run-id.js";

const runIdSegment = fc
  .stringMatching(/^[A-Za-z0-9._~-]{1,40}$/)
  .filter((runId) => runId !== "." && runId !== "..");

describe("blobUri / parseBlobUri", () => {
  it("writes resource://runs/<runId>/blobs/<n>, a valid ResourceRef ref", () => {
    const runId = newRunId({ shard: 3, nowMs: 1_700_000_000_000, random: new Uint8Array(10) });
    const uri = blobUri(runId, 2);
    expect(uri).toBe(`resource://runs/${runId}/blobs/2`);
    const ref = {
      ref: uri,
      contentType: "application/json",
      sizeBytes: 40_000,
      sha256: "0".repeat(64),
    };
    expect(ResourceRef.parse(ref)).toStrictEqual(ref);
  });

  it("parses back what it writes", () => {
    fc.assert(
      fc.property(runIdSegment, fc.nat(), (runId, n) => {
        expect(parseBlobUri(blobUri(runId, n))).toStrictEqual({ runId, n });
      }),
    );
  });

  it.each([
    "resource://runs/R1/blobs/01",
    "resource://runs/R1/blobs/-1",
    "resource://runs/R1/blobs/1.5",
    "resource://runs/R1/blobs/99999999999999999999",
    "resource://runs//blobs/1",
    "resource://runs/../blobs/1",
    "resource://runs/a:b/blobs/1",
    "resource://runs/R1/blobs/1/extra",
    "https://runs/R1/blobs/1",
  ])("does not read %s as a blob URI", (uri) => {
    expect(parseBlobUri(uri)).toBeUndefined();
  });

  it.each([
    ["a run id with a slash", "a/b", 1],
    ["an empty run id", "", 1],
    ["a negative number", "R1", -1],
    ["a fractional number", "R1", 1.5],
  ])("refuses to write a URI for %s", (_label, runId, n) => {
    let caught: unknown;
    try {
      blobUri(runId, n);
    } catch (error) {
      caught = error;
    }
    expect(isErrandError(caught, "internal")).toBe(true);
  });
});
