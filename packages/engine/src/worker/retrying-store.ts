/**
 * The store as a worker writes to it: an append or a blob that fails with a
 * transient Redis error (out of memory, unable to persist, a Redis Cluster
 * moving, a server loading, a lost connection; see `transient-redis.ts`) is tried again, with
 * backoff, until it goes through (docs/architecture/redis-errors.md#transient-redis-errors-are-not-outcomes). The worker holds the run meanwhile — its
 * job stays active, its lock kept (see `run-worker.ts`) — instead of failing
 * the job and spending one of its BullMQ attempts on a write that would have
 * gone through a little later. Trying an append again is safe: a refused
 * append wrote nothing, and it is fenced on the seq its writer saw, so if
 * another writer moved the log on meanwhile the retry is refused like any
 * stale append (an append cut off by a lost connection may have gone in: its
 * retry then finds its own events in the log and resolves as the first call
 * would have, never written twice). A run's own limits still hold: a step
 * appended after its timeout is followed by `failed` (`timeout`), and a run
 * past its deadline is settled by the reaper once Redis has room, which
 * refuses the retried append.
 */
import type { Logger } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";

/** `store`, whose appends and blob writes wait out transient Redis errors; `logger` hears of the waits. */
export function retryingStore(store: EventStore, logger: Logger): EventStore {
  return {
    ...store,
    appendEvents: (runId, expectedSeq, events) =>
      retryWhileRedisIsTransient(() => store.appendEvents(runId, expectedSeq, events), {
        logger,
        write: "append to the run's log",
        fields: { runId, expectedSeq },
      }),
    putBlob: (runId, value, contentType) =>
      retryWhileRedisIsTransient(() => store.putBlob(runId, value, contentType), {
        logger,
        write: "blob of the run",
        fields: { runId },
      }),
  };
}
