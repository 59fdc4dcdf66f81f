/**
 * Decoding an event read back from where this system stored it: a run's log,
 * or a shard stream's entry. Every event was validated against its schema
 * when it was appended, before the fenced append script accepted it
 * (docs/architecture/events.md): that is the boundary where data enters the log
 * and the streams. Reading it back checks only what tells an event from
 * something else — a known type, a positive whole seq, an `at` shaped as an
 * ISO-8601 timestamp, data that is an object — and does not validate the
 * data again, which cost more
 * than the rest of reading an event. Fields a newer writer added (additive,
 * by the event format's rule) are kept as they are; readers ignore what
 * they do not know.
 */
import { EVENT_VERSION, EventData, type RunEvent } from "./events.js";

/** The parts of a stored event, as the store keeps them: strings, each possibly missing. */
export interface StoredEventFields {
  seq: string | undefined;
  type: string | undefined;
  at: string | undefined;
  /** The event's data as JSON text. */
  data: string | undefined;
}

/**
 * The parts of a stored event once parsed, as a shard entry's JSON holds
 * them (`[type, at, data]`, numbered from the entry's seq): anything, until checked.
 */
export interface StoredEventParts {
  seq: number;
  type: unknown;
  at: unknown;
  /** The event's data, parsed. */
  data: unknown;
}

/** A decoded stored event, or what keeps the entry from being one. */
export type StoredEventDecoding = { ok: true; event: RunEvent } | { ok: false; error: string };

function isEventType(type: unknown): type is RunEvent["type"] {
  return typeof type === "string" && Object.hasOwn(EventData, type);
}

/**
 * The shape of an ISO-8601 timestamp with an offset (what an event's `at` is
 * validated as when appended; this is a superset, a check of shape only).
 */
const TIMESTAMP_SHAPE = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d(?::?\d\d)?)$/;

function isTimestamp(at: unknown): at is string {
  return typeof at === "string" && TIMESTAMP_SHAPE.test(at);
}

function isDataObject(data: unknown): data is Record<string, unknown> {
  return typeof data === "object" && data !== null && !Array.isArray(data);
}

/** The value of `json`, or `undefined` when it is missing or not JSON. */
function parseJson(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/**
 * The event of run `runId` that `parts` make, checked as {@link decodeStoredEvent}
 * checks a stored event (the data is not validated again); `ok: false` with
 * the reason when the parts are not an event's.
 */
export function checkStoredEvent(runId: string, parts: StoredEventParts): StoredEventDecoding {
  const { seq, type, at, data } = parts;
  if (!Number.isSafeInteger(seq) || seq < 1) {
    return { ok: false, error: `seq: not a positive whole number (${seq})` };
  }
  if (!isEventType(type)) return { ok: false, error: `type: unknown (${String(type)})` };
  if (!isTimestamp(at)) return { ok: false, error: "at: not a timestamp" };
  if (!isDataObject(data)) return { ok: false, error: "data: not JSON of an object" };
  return { ok: true, event: { v: EVENT_VERSION, runId, seq, type, at, data } as RunEvent };
}

/**
 * The event of run `runId` that `fields` store, decoded without validating
 * its data again (see the file's comment); `ok: false` with the reason when
 * the fields are not an event's.
 */
export function decodeStoredEvent(runId: string, fields: StoredEventFields): StoredEventDecoding {
  if (fields.seq === undefined)
    return { ok: false, error: "seq: not a positive whole number (undefined)" };
  return checkStoredEvent(runId, {
    seq: Number(fields.seq),
    type: fields.type,
    at: fields.at,
    data: parseJson(fields.data),
  });
}
