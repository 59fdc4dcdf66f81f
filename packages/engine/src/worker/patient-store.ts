/**
 * The store as a worker writes to it: an append or a blob that Redis refuses
 * because it is out of memory is tried again, with backoff, until Redis has
 * room (docs/architecture.md §7). The worker holds the run meanwhile — its
 * job stays active, its lock kept (see `run-worker.ts`) — instead of failing
 * the job and spending one of its BullMQ attempts on a write that would have
 * gone through a little later. Trying an append again is safe: a refused
 * append wrote nothing, and it is fenced on the seq its writer saw, so if
 * another writer moved the log on meanwhile the retry is refused like any
 * stale append. A run's own limits still hold: a step appended after its
 * timeout is followed by `failed` (`timeout`), and a run past its deadline is
 * settled by the reaper once Redis has room, which refuses the retried append.
 */
import type { Logger } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import { retryWhileOutOfMemory } from "../out-of-memory.js";

/** `store`, whose appends and blob writes wait out a Redis out of memory; `logger` hears of the waits. */
export function patientStore(store: EventStore, logger: Logger): EventStore {
  return {
    ...store,
    appendEvents: (runId, expectedSeq, events) =>
      retryWhileOutOfMemory(() => store.appendEvents(runId, expectedSeq, events), {
        logger,
        write: "append to the run's log",
        fields: { runId, expectedSeq },
      }),
    putBlob: (runId, value, contentType) =>
      retryWhileOutOfMemory(() => store.putBlob(runId, value, contentType), {
        logger,
        write: "blob of the run",
        fields: { runId },
      }),
  };
}
