/**
 * The events as the page receives them: secrets redacted, large values and
 * deep nesting cut (`truncated: true` tells the page to offer the whole
 * event, which is itself cut only below {@link WHOLE_LIMITS}' depth).
 */
import type { RunEvent } from "@errand/core";
import { PREVIEW_LIMITS, showValue, WHOLE_LIMITS } from "./show-value.js";

/** One event of a run's timeline: the event's envelope, its data redacted and maybe shortened. */
export interface TimelineEvent {
  runId: string;
  seq: number;
  type: RunEvent["type"];
  at: string;
  data: unknown;
  /** Whether `data` was shortened: the full event is at `GET /api/runs/:runId/events/:seq`. */
  truncated: boolean;
}

/** The event whole, with its secrets redacted (and nesting cut below 64 levels: `truncated`). */
export function fullTimelineEvent(event: RunEvent): TimelineEvent {
  const whole = showValue(event.data, WHOLE_LIMITS);
  return { ...envelope(event), data: whole.value, truncated: whole.truncated };
}

/** The event for the timeline: redacted, with large values and deep nesting shortened. */
export function timelineEvent(event: RunEvent): TimelineEvent {
  const preview = showValue(event.data, PREVIEW_LIMITS);
  return { ...envelope(event), data: preview.value, truncated: preview.truncated };
}

function envelope(event: RunEvent): Omit<TimelineEvent, "data" | "truncated"> {
  return { runId: event.runId, seq: event.seq, type: event.type, at: event.at };
}
