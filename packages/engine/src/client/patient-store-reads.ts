/**
 * The store a client hands out (`errand.store`), its reads patient: the
 * dashboard and the CLI read logs, heads and blobs through it, and those
 * reads wait out a Redis that cannot answer now as every client call does
 * (`client-patience.ts`). Its writes are left as they are: repeating one
 * cut off by a lost connection is not always safe.
 */
import type { EventStore } from "@errand/store";
import type { Patiently } from "../redis/client-patience.js";

/** `store` whose reads go through `patiently`. */
export function withPatientReads(store: EventStore, patiently: Patiently): EventStore {
  return {
    ...store,
    readIdempotencyKey: (key) =>
      patiently("read of an idempotency key", () => store.readIdempotencyKey(key)),
    readLog: (runId, options) =>
      patiently("read of a run's log", () => store.readLog(runId, options)),
    readHead: (runId) => patiently("read of a run's head", () => store.readHead(runId)),
    readShard: (shard, options) =>
      patiently("read of a shard's stream", () => store.readShard(shard, options)),
    readLive: (runId, after) =>
      patiently("read of a run's live deltas", () => store.readLive(runId, after)),
    getBlob: (ref) => patiently("read of a blob", () => store.getBlob(ref)),
  };
}
