/**
 * Events their writer vouches for: errand built them itself, from data
 * validated where that data entered, so an append writes them without
 * validating them again — each datum is validated once, at its boundary
 * (docs/architecture/events.md). The mark lives here, beside the events, so
 * that a writer below the store (the runtime's agent loop) can set it and
 * the store's append can read it.
 */
import type { NewEvent } from "./events.js";

/** The events marked by {@link markChecked}. */
const checkedEvents = new WeakSet<NewEvent>();

/**
 * Marks `event` as checked and returns it. Only for events whose every
 * field was checked, or made by errand, exactly as core's schema of its type
 * says and as the append script reads it (no lone surrogate, nesting within
 * Redis' JSON reader): a marked event is written as it is. An event that is
 * not marked is validated as always.
 */
export function markChecked<E extends NewEvent>(event: E): E {
  checkedEvents.add(event);
  return event;
}

/** Whether `event` was marked by {@link markChecked}. */
export function isMarkedChecked(event: NewEvent): boolean {
  return checkedEvents.has(event);
}
