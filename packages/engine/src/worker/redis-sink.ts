/**
 * The runtime's `EventSink` on the Redis store: each step of a run is one
 * call of the fenced append script, one round trip.
 */
import type { EventSink } from "@errand/runtime";
import type { EventStore } from "@errand/store";

/** An {@link EventSink} writing to `store`, fenced by the seq the runtime expects. */
export function redisEventSink(store: EventStore): EventSink {
  return { append: (runId, expectedSeq, events) => store.appendEvents(runId, expectedSeq, events) };
}
