/**
 * The fold kept for a run's result alone: {@link applyEvent} of each event
 * without what `settleRun` never reads. A model response keeps its step
 * number, finish, usage and cost, and leaves out its calls, text, output
 * items and response id (the transcript's); so the calls' results, refusals
 * and recordings find no call to update and leave the state as it is, while
 * the recorded output, the settling events and the run's definition fold as
 * they always do. A parent of a million children then folds to a few
 * hundred bytes a step, not to its spawn previews and collect pages
 * (docs/architecture/collector.md#results-folded-a-page-at-a-time).
 */
import type { RunEvent } from "./events.js";
import { applyEvent, applyEventInPlace } from "./fold.js";
import type { RunState } from "./run-state.js";

/** `event` as far as a run's result reads it: a model response without its calls and transcript, any other event as it is. */
function resultEvent(event: RunEvent): RunEvent {
  if (event.type !== "model-responded") return event;
  const { step, finish, usage, costUsd } = event.data;
  return {
    ...event,
    data: { step, finish, usage, calls: [], ...(costUsd === undefined ? {} : { costUsd }) },
  };
}

/**
 * Folds one more event into a state kept for the run's result: the same
 * rules as {@link applyEvent} (repeats skipped, a gap refused), and
 * `settleRun` of the state folded this way is `settleRun` of the whole fold.
 * The state's steps hold no calls: give it to nothing that reads them (the
 * runtime, a transcript).
 */
export function applyResultEvent(state: RunState, event: RunEvent): RunState {
  return applyEvent(state, resultEvent(event));
}

/**
 * {@link applyResultEvent} into `state` itself, as `applyEventInPlace` folds
 * (the same ownership rule): for a fold of many events, at a cost per event
 * that does not grow with the run. Returns `state`.
 */
export function applyResultEventInPlace(state: RunState, event: RunEvent): RunState {
  return applyEventInPlace(state, resultEvent(event));
}
