/**
 * Checking the events a writer hands to an append, before anything is sent:
 * each must be a valid event of its type, exactly as core's schemas say.
 */
import {
  ErrandError,
  EVENT_VERSION,
  EventAt,
  EventData,
  type EventType,
  type NewEvent,
  type RunEvent,
} from "@errand/core";
import { findLosslessJsonProblem, formatJsonPath, isMarkedChecked } from "@errand/core/ops";
import { describeIssues } from "./codec.js";

/**
 * The events whose data the append script decodes with Redis' JSON reader
 * (cjson), which refuses data nested over 1,000 levels or holding half a
 * UTF-16 surrogate pair.
 */
const SCRIPT_READ_EVENTS: ReadonlySet<string> = new Set(["run-queued", "run-started"]);

/** The deepest data Redis' JSON reader takes: the data object itself is level 1. */
const SCRIPT_READ_MAX_NESTING = 1_000;

/** Why the append script could not read `event`'s data, or `undefined` when it can (or need not). */
function scriptReadProblem(event: NewEvent): string | undefined {
  if (!SCRIPT_READ_EVENTS.has(event.type)) return undefined;
  const problem = findLosslessJsonProblem(event.data, { maxDepth: SCRIPT_READ_MAX_NESTING });
  return problem === undefined
    ? undefined
    : `${formatJsonPath(["data", ...problem.path], "data")} ${problem.problem}`;
}

/**
 * The pattern core's `EventAt` tests an `at` string against: an `at` that
 * matches it is valid without the parse's result, context and issue list,
 * and one that does not is parsed, for the parse's own message.
 */
const EVENT_AT_PATTERN: RegExp | undefined = EventAt._zod.def.pattern;

/** Whether `at` is a valid `EventAt`, as its parse would tell. */
function isEventAt(at: unknown): boolean {
  return typeof at === "string" && EVENT_AT_PATTERN !== undefined && EVENT_AT_PATTERN.test(at);
}

/**
 * `event` validated and cleaned by core's schema of its type (unknown keys
 * dropped): its data against `EventData[type]` and its `at`, without the
 * envelope (`v`, `runId`, `seq`), which the store sets itself. The error
 * names the fields as the envelope does (`data.…`, `at`, `type`).
 */
function validEvent(event: NewEvent): { ok: true; event: NewEvent } | { ok: false; error: string } {
  const { type } = event as { type: unknown };
  if (typeof type !== "string" || !Object.hasOwn(EventData, type)) {
    return { ok: false, error: `type: not an event type (${String(type)})` };
  }
  if (!isEventAt(event.at)) {
    const at = EventAt.safeParse(event.at);
    if (!at.success) return { ok: false, error: describeIssues(at.error.issues, "at") };
  }
  const data = EventData[type as EventType].safeParse(event.data);
  if (!data.success) return { ok: false, error: describeIssues(data.error.issues, "data") };
  return { ok: true, event: { type, at: event.at, data: data.data } as NewEvent };
}

/**
 * The events, validated and cleaned by core's schemas (unknown keys dropped),
 * or an {@link ErrandError} `invalid_event` naming the first invalid one and why
 * (data the append script reads must be within what Redis' JSON reader takes).
 * An event marked by core's `markChecked` is taken as it is: its writer
 * built it from data validated where that data entered.
 */
export function validateNewEvents(runId: string, events: readonly NewEvent[]): NewEvent[] {
  return events.map((event, index) => {
    if (isMarkedChecked(event)) return event;
    const unreadable = scriptReadProblem(event);
    if (unreadable !== undefined) {
      throw new ErrandError(
        "invalid_event",
        `run ${runId}: event #${index + 1} of the batch (${event.type}) cannot be stored: ${unreadable}`,
        { details: { runId, eventIndex: index } },
      );
    }
    const valid = validEvent(event);
    if (!valid.ok) {
      throw new ErrandError(
        "invalid_event",
        `run ${runId}: event #${index + 1} of the batch (${String(event.type)}) is invalid: ${valid.error}`,
        { details: { runId, eventIndex: index, issues: valid.error } },
      );
    }
    return valid.event;
  });
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
