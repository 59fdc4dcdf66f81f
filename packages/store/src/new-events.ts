/**
 * Checking the events a writer hands to an append, before anything is sent:
 * each must be a valid event of its type, exactly as core's schemas say.
 */
import { ErrandError, EVENT_VERSION, type NewEvent, type RunEvent } from "@errand/core";
import { parseEvent } from "./codec.js";

/**
 * The events, validated and cleaned by core's schemas (unknown keys dropped),
 * or an {@link ErrandError} `invalid_event` naming the first invalid one and why.
 * The store assigns `seq`; validation places each event at its position in the batch.
 */
export function validateNewEvents(runId: string, events: readonly NewEvent[]): NewEvent[] {
  return events.map((event, index) => {
    const parsed = parseEvent({
      type: event.type,
      at: event.at,
      data: event.data,
      v: EVENT_VERSION,
      runId,
      seq: index + 1,
    });
    if (!parsed.ok) {
      throw new ErrandError(
        "invalid_event",
        `run ${runId}: event #${index + 1} of the batch (${String(event.type)}) is invalid: ${parsed.error}`,
        { details: { runId, eventIndex: index, issues: parsed.error } },
      );
    }
    return withoutPlace(parsed.event);
  });
}

function withoutPlace({ v: _v, runId: _runId, seq: _seq, ...event }: RunEvent): NewEvent {
  return event;
}

/** The new events as the log will hold them, once the store gave them seqs from `firstSeq`. */
export function placeEvents(
  runId: string,
  firstSeq: number,
  events: readonly NewEvent[],
): RunEvent[] {
  return events.map((event, index) => ({
    v: EVENT_VERSION,
    runId,
    seq: firstSeq + index,
    ...event,
  }));
}
