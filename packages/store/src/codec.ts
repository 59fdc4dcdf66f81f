/**
 * The one place where events meet Redis: a new event becomes the append
 * script's arguments (type, at, data as JSON), and a stream entry's fields
 * become events again. A run-log entry is one event (seq, type, at, data).
 * A shard-stream entry is one append: runId, seq (its first event's) and
 * events, a JSON array of `[type, at, data]`; an entry written by a worker
 * before that format (one entry per event: runId, seq, type, at, data) is
 * read too. The append script writes the fields under exactly these names.
 */
import {
  decodeStoredEvent,
  ErrandError,
  EVENT_VERSION,
  type NewEvent,
  RunEvent,
} from "@errand/core";

/** A stream entry's fields as Redis returns them: `[name, value, name, value, …]`. */
type StreamFields = readonly string[];

/** A stream entry as Redis returns it: `[id, fields]`. */
export type StreamEntry = [id: string, fields: string[]];

/** One entry of a shard stream: the events of one append, or why it could not be read. */
export interface ShardEntry {
  /** The stream entry id. */
  id: string;
  /** The run the entry belongs to (`""` when the entry does not say). */
  runId: string;
  /** The entry's size: the length of its field names and values together. */
  size: number;
  /** The events, in seq order, when every one is valid (one, in an entry of the per-event format). */
  events?: RunEvent[];
  /** Why the entry is not valid events, otherwise. */
  error?: string;
}

type Parsed = { ok: true; event: RunEvent } | { ok: false; error: string };
type ParsedAll = { ok: true; events: RunEvent[] } | { ok: false; error: string };

/** The `[type, at, data]` arguments of one event for the append script. */
export function encodeEventArgs(event: NewEvent): [string, string, string] {
  return [event.type, event.at, JSON.stringify(event.data)];
}

function fieldMap(fields: StreamFields): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  return map;
}

/** zod's `issues` as one line: `path: message; …`, each path under `under` when given. */
export function describeIssues(
  issues: readonly { path: PropertyKey[]; message: string }[],
  under?: string,
): string {
  return issues
    .map((issue) => {
      const path = [...(under === undefined ? [] : [under]), ...issue.path.map(String)];
      return `${path.join(".") || "(root)"}: ${issue.message}`;
    })
    .join("; ");
}

/** Validates an event envelope; the error says what is wrong with it. */
function parseEvent(candidate: unknown): Parsed {
  const result = RunEvent.safeParse(candidate);
  return result.success
    ? { ok: true, event: result.data }
    : { ok: false, error: describeIssues(result.error.issues) };
}

function parseFields(runId: string, fields: Map<string, string>): Parsed {
  const dataJson = fields.get("data");
  let data: unknown;
  try {
    data = dataJson === undefined ? undefined : JSON.parse(dataJson);
  } catch {
    return { ok: false, error: "data: not JSON" };
  }
  const seq = fields.get("seq");
  return parseEvent({
    v: EVENT_VERSION,
    runId,
    seq: seq === undefined ? undefined : Number(seq),
    type: fields.get("type"),
    at: fields.get("at"),
    data,
  });
}

/** The events of a shard entry of one append: `events` as `[type, at, data]`, numbered from `seq`. */
function parseAppendFields(
  runId: string,
  fields: Map<string, string>,
  eventsJson: string,
): ParsedAll {
  let listed: unknown;
  try {
    listed = JSON.parse(eventsJson);
  } catch {
    return { ok: false, error: "events: not JSON" };
  }
  if (!Array.isArray(listed) || listed.length === 0) {
    return { ok: false, error: "events: not a list of events" };
  }
  const firstSeq = Number(fields.get("seq"));
  const events: RunEvent[] = [];
  for (const [index, item] of listed.entries()) {
    const [type, at, data] = Array.isArray(item) ? item : [];
    const parsed = parseEvent({ v: EVENT_VERSION, runId, seq: firstSeq + index, type, at, data });
    if (!parsed.ok) return { ok: false, error: `event ${index + 1}: ${parsed.error}` };
    events.push(parsed.event);
  }
  return { ok: true, events };
}

/** The events of a shard entry, in either format. */
function parseShardFields(runId: string, fields: Map<string, string>): ParsedAll {
  const eventsJson = fields.get("events");
  if (eventsJson !== undefined) return parseAppendFields(runId, fields, eventsJson);
  const parsed = parseFields(runId, fields);
  return parsed.ok ? { ok: true, events: [parsed.event] } : parsed;
}

/**
 * The event of one run-log entry, decoded without validating its data again:
 * the append validated it before the fenced script wrote it (core's
 * `decodeStoredEvent`). Throws an {@link ErrandError} `invalid_event` when the
 * entry is not an event: the log is the truth, so a broken entry is an
 * error, not something to skip.
 */
export function decodeLogEntry(runId: string, [id, fields]: StreamEntry): RunEvent {
  const map = fieldMap(fields);
  const parsed = decodeStoredEvent(runId, {
    seq: map.get("seq"),
    type: map.get("type"),
    at: map.get("at"),
    data: map.get("data"),
  });
  if (parsed.ok) return parsed.event;
  throw new ErrandError(
    "invalid_event",
    `run ${runId}: log entry ${id} is not a valid event: ${parsed.error}`,
    { details: { runId, entryId: id } },
  );
}

/**
 * One shard-stream entry, decoded, in either format. Never throws: an entry
 * that is not valid events comes back with `error` (a collector dead-letters it).
 */
export function decodeShardEntry([id, fields]: StreamEntry): ShardEntry {
  const map = fieldMap(fields);
  const runId = map.get("runId") ?? "";
  const size = fields.reduce((total, field) => total + field.length, 0);
  if (runId === "") return { id, runId, size, error: "runId: missing" };
  const parsed = parseShardFields(runId, map);
  return parsed.ok
    ? { id, runId, size, events: parsed.events }
    : { id, runId, size, error: parsed.error };
}
