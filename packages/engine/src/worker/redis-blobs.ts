/**
 * The runtime's `BlobStore` on the Redis store: large tool results are kept
 * beside the run's log, expire with it, and are read back by reference.
 */
import type { BlobStore } from "@errand/runtime";
import type { EventStore } from "@errand/store";

/** A {@link BlobStore} on `store`'s blobs. */
export function redisBlobStore(store: EventStore): BlobStore {
  return {
    put: (runId, value, contentType) => store.putBlob(runId, value, contentType),
    async get(ref) {
      const blob = await store.getBlob(ref);
      return blob && { value: blob.value, contentType: blob.ref.contentType };
    },
  };
}
