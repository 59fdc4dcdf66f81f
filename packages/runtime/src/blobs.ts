/**
 * Blobs: large values kept outside a run's log and referenced from its events
 * as `resource://runs/<runId>/blobs/<n>` with their size and SHA-256
 * (docs/architecture/tool-results.md#the-result-vocabulary). The Redis store has its own implementation; the memory one
 * here serves tests and runs without Redis.
 */
import { createHash } from "node:crypto";
import type { ResourceRef } from "@errand/core";
import { blobUri, utf8ByteLength } from "@errand/core/ops";

/** A stored blob. */
export interface StoredBlob {
  value: string;
  contentType: string;
}

/** Where large values go. */
export interface BlobStore {
  /** Stores `value` as the next blob of run `runId` and returns its reference. */
  put(runId: string, value: string, contentType: string): Promise<ResourceRef>;
  /** The blob a reference (or its `resource://` URI) points to; `undefined` when there is none. */
  get(ref: ResourceRef | string): Promise<StoredBlob | undefined>;
}

/** The reference of `value` stored at `uri`: its content type, UTF-8 size and SHA-256. */
function blobRef(uri: string, value: string, contentType: string): ResourceRef {
  return {
    ref: uri,
    contentType,
    sizeBytes: utf8ByteLength(value),
    sha256: createHash("sha256").update(value, "utf8").digest("hex"),
  };
}

/** A {@link BlobStore} in this process's memory, numbering each run's blobs 0, 1, 2, … like the Redis store. */
export function createMemoryBlobStore(): BlobStore {
  const blobs = new Map<string, StoredBlob>();
  const counts = new Map<string, number>();
  return {
    async put(runId, value, contentType) {
      const n = counts.get(runId) ?? 0;
      counts.set(runId, n + 1);
      const ref = blobRef(blobUri(runId, n), value, contentType);
      blobs.set(ref.ref, { value, contentType });
      return ref;
    },
    async get(ref) {
      return blobs.get(typeof ref === "string" ? ref : ref.ref);
    },
  };
}
