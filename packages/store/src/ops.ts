/**
 * `@errand/store/ops` — the parts of the store the engine and errand's apps
 * build on: the key layout and its shard tags, the Lua command helper, the
 * collector's index write (`indexRuns`) and the readers of stored results and
 * standings, the settled waiter and its diagnostics channel, the stream
 * entry decoders, the client lifecycle and the deadlines that share one timer.
 *
 * **Unstable.** This subpath carries no semver promise: a name here may
 * change or go in any release, in step with errand's own packages and apps.
 * Build on the root, `@errand/store`, whose names the docs teach.
 *
 * @packageDocumentation
 */

export { closeConnection, whenReady } from "./client-lifecycle.js";
export { decodeShardEntry } from "./codec.js";
export { DEFAULT_SHARDS } from "./event-store.js";
export { idempotencyShard } from "./idempotency.js";
export { DEFAULT_KEY_PREFIX, shardTag, storeKeys } from "./keys.js";
export { decodeLiveEntry, isLiveOffset, LIVE_START } from "./live.js";
export {
  defineLuaCommand,
  type LuaCall,
  type LuaScript,
  type RedisClient,
  readLuaFile,
} from "./lua-command.js";
export {
  announcedRunIds,
  defineIndexRunsScript,
  type IndexedRun,
  type IndexSegment,
  indexRuns,
  indexSegment,
  type OutcomeWriter,
  type RunToIndex,
  runIdOfIndexMember,
  runIndexMember,
} from "./outcomes/index-runs.js";
export {
  type AnnouncedResults,
  createSettledWaiter,
  SETTLED_HEARD_CHANNEL,
  type SettledHeard,
  type SettledWaiter,
  SUBSCRIPTION_LINGER_MS,
} from "./outcomes/settled-waiter.js";
export {
  defineStandingsScript,
  type OutcomeReads,
  type RunStanding,
  type StandingsOptions,
} from "./outcomes/standings.js";
export {
  newestPendingRunIds,
  parseStoredResult,
  pendingRunIds,
  readStoredResults,
  readStoredRuns,
  type StoredRuns,
  storedResultJson,
} from "./outcomes/stored-results.js";
export { logEntryId, logEventsAfter } from "./readers.js";
export { type Deadline, scheduleDeadline } from "./shared-deadlines.js";
export { readWatchedStreams } from "./watched-logs.js";
