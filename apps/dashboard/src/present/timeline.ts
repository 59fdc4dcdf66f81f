/**
 * The events as the page receives them: secrets redacted, large values cut
 * (`truncated: true` tells the page to offer the whole event).
 */
import { type RunEvent, redactSecrets } from "@errand/core";
import { previewValue } from "./truncate.js";

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

/** The event whole, with its secrets redacted. */
export function fullTimelineEvent(event: RunEvent): TimelineEvent {
  return { ...envelope(event), data: redactSecrets(event.data), truncated: false };
}

/** The event for the timeline: redacted, with large values shortened. */
export function timelineEvent(event: RunEvent): TimelineEvent {
  const preview = previewValue(redactSecrets(event.data));
  return { ...envelope(event), data: preview.value, truncated: preview.truncated };
}

function envelope(event: RunEvent): Omit<TimelineEvent, "data" | "truncated"> {
  return { runId: event.runId, seq: event.seq, type: event.type, at: event.at };
}
