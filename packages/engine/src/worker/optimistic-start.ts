/**
 * The optimistic first attempt (docs/architecture/worker.md#the-optimistic-first-attempt): the first delivery
 * of a run's job, on a log that holds no attempt yet, does not append its
 * `run-started` alone. The run-started is folded into the state the agent
 * loop starts from, and goes to the log in the append of the first step (or
 * of whatever the loop appends first), fenced on the seq the fire wrote: one
 * round trip where two were. Should that append be refused, the worker reads
 * the log again and decides as after any refused append.
 */
import {
  applyEvent,
  EVENT_VERSION,
  type NewEvent,
  type RunEvent,
  type RunState,
} from "@errand/core";
import type { EventSink } from "@errand/runtime";

/** The run's state with `started` folded in as the event after its last, and the sink that logs it. */
export interface DeferredStart {
  state: RunState;
  sink: EventSink;
}

/**
 * Folds `started` (the attempt's `run-started`) into `state` locally, and
 * wraps `sink` so that its first append carries `started` before the events
 * it is given, fenced on the seq of `state` (what the fire wrote).
 * `onLogged` is called once that append is acknowledged.
 */
export function deferStart(
  state: RunState,
  started: NewEvent,
  sink: EventSink,
  onLogged: () => void,
): DeferredStart {
  // Spread last: on Node 20 a spread followed by new keys costs microseconds.
  const local = { v: EVENT_VERSION, runId: state.runId, seq: state.seq + 1, ...started };
  let pending: NewEvent | undefined = started;
  return {
    state: applyEvent(state, local as RunEvent),
    sink: {
      async append(runId, expectedSeq, events) {
        if (pending === undefined) return sink.append(runId, expectedSeq, events);
        const written = await sink.append(runId, expectedSeq - 1, [pending].concat(events));
        pending = undefined;
        onLogged();
        return written;
      },
    },
  };
}
