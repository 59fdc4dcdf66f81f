/**
 * `@errand/store` — the run log on Redis.
 *
 * Every fact about a run is an event appended to that run's log (a Redis
 * STREAM) and fanned into its shard's stream, where collectors read it. One
 * append is one Lua script call, whatever the number of events: it checks the
 * writer's expected `seq` (the fence against zombie attempts), refuses
 * anything after a terminal event and a second `output-recorded`, writes both
 * streams and updates the run's head. All of a run's keys carry the hash tag
 * of the shard written into its runId, so the store runs on a single Redis
 * and on Redis Cluster alike.
 *
 * ```ts
 * import { Redis } from "ioredis";
 * import { createEventStore, isSeqConflict } from "@errand/store";
 *
 * const store = createEventStore({ redis: new Redis(process.env.REDIS_URL!) });
 * const runId = store.newRunId();
 * const at = new Date().toISOString();
 * await store.appendEvents(runId, 0, [{ type: "run-queued", at, data: queued }]);
 * try {
 *   await store.appendEvents(runId, 1, [{ type: "run-started", at, data: { attempt: 1, workerId } }]);
 * } catch (error) {
 *   if (isSeqConflict(error)) {} // another attempt owns the run: re-read its log
 * }
 * const events = await store.readLog(runId);
 * ```
 *
 * Beside the log, `outcomes/` is the one home of how runs ended
 * (docs/architecture/redis-layout.md, docs/architecture/collector.md): the collector's write of a batch's indexes
 * and results (`indexRuns`), the readers of stored results and standings,
 * and the waiting on the shards' settled announcements. They serve the
 * engine, and are exported from `@errand/store/ops` without a semver promise.
 *
 * A connection that fails is named by `redisConnectionError`: refused
 * credentials, a user without a permission errand needs, a failed TLS
 * handshake, or an unreachable server, each with what to do about it.
 *
 * The store never imports BullMQ, the runtime or the engine.
 *
 * @packageDocumentation
 */
export type { BlobContent } from "./blobs.js";
export type { QueuedSummary, ShardEntry, StreamEntry } from "./codec.js";
export { redisConnectionError } from "./connection-errors.js";
export { isSeqConflict, SeqConflictError } from "./errors.js";
export {
  type CreatedRun,
  createEventStore,
  type EventStore,
  type EventStoreOptions,
  type LogEntries,
  type RunKeyExpiry,
} from "./event-store.js";
export type { FollowLogOptions } from "./follow.js";
export type { FollowLiveOptions } from "./follow-live.js";
export type { HeadStatus, RunHead } from "./head.js";
export type { IdempotencyKey } from "./idempotency.js";
export type { StoreKeys } from "./keys.js";
export { LIVE_TTL_MS } from "./live.js";
export type { ReadLogOptions, ReadShardOptions } from "./readers.js";
export type { Durability } from "./replication.js";
export type { RunToWithdraw, Withdrawal } from "./withdraw.js";
