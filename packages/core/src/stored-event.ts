/**
 * Decoding an event read back from a run's log. Every event was validated
 * against its schema when it was appended, before the fenced append script
 * accepted it (docs/architecture.md §3): that is the boundary where data
 * enters the log. Reading it back checks only what tells an event from
 * something else — a known type, a positive whole seq, an `at` string, data
 * that is JSON of an object — and does not validate the data again, which
 * cost more than the rest of reading a log. Fields a newer writer added
 * (additive, by the event format's rule) are kept as they are; readers
 * ignore what they do not know.
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

/** A decoded stored event, or what keeps the entry from being one. */
export type StoredEventDecoding = { ok: true; event: RunEvent } | { ok: false; error: string };

function isEventType(type: string | undefined): type is RunEvent["type"] {
  return type !== undefined && Object.hasOwn(EventData, type);
}

/** The data of `json`, or `undefined` when it is not JSON of an object. */
function dataObject(json: string | undefined): Record<string, unknown> | undefined {
  if (json === undefined) return undefined;
  try {
    const data: unknown = JSON.parse(json);
    return typeof data === "object" && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The event of run `runId` that `fields` store, decoded without validating
 * its data again (see the file's comment); `ok: false` with the reason when
 * the fields are not an event's.
 */
export function decodeStoredEvent(runId: string, fields: StoredEventFields): StoredEventDecoding {
  const seq = Number(fields.seq);
  if (fields.seq === undefined || !Number.isSafeInteger(seq) || seq < 1) {
    return { ok: false, error: `seq: not a positive whole number (${fields.seq})` };
  }
  const { type, at } = fields;
  if (!isEventType(type)) return { ok: false, error: `type: unknown (${type})` };
  if (at === undefined || at === "") return { ok: false, error: "at: missing" };
  const data = dataObject(fields.data);
  if (data === undefined) return { ok: false, error: "data: not JSON of an object" };
  return { ok: true, event: { v: EVENT_VERSION, runId, seq, type, at, data } as RunEvent };
}
