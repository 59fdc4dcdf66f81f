/**
 * The one place where events meet Redis: a new event becomes the append
 * script's arguments (type, at, data as JSON), and a stream entry's fields
 * become events again. A run-log entry is one event (seq, type, at, data),
 * or one append of several events: seq (its first event's) and events, a JSON
 * array of `[type, at, data]` (docs/architecture/redis-layout.md#the-append).
 * A shard-stream entry is one append: runId, seq and events alike; an entry
 * written by a worker before that format (one entry per event: runId, seq,
 * type, at, data) is read too. The append script writes the fields under exactly these names.
 * Both are decoded without validating their events' data again (core's
 * `decodeStoredEvent`): the append validated it before the fenced script
 * wrote the log and the shard stream alike.
 */
import { ErrandError, type NewEvent, type RunEvent } from "@errand/core";
import {
  checkStoredEvent,
  decodeStoredEvent,
  isRunId,
  type StoredEventDecoding,
  shardOfRunId,
} from "@errand/core/ops";

/** A stream entry's fields as Redis returns them: `[name, value, name, value, …]`. */
type StreamFields = readonly string[];

/** A stream entry as Redis returns it: `[id, fields]`. */
export type StreamEntry = [id: string, fields: string[]];

/**
 * What the first append after a quiet opening copies from its run's head
 * into its shard entry (`append-11.lua`): the part of the run's `run-queued`
 * the collector's result needs, the opening itself having written no entry.
 */
export interface QueuedSummary {
  agent: string;
  rootRunId: string;
  parentRunId?: string;
  tenant?: string;
  depth: number;
  /** Whether the run's `run-queued` carries an output schema. */
  hasSchema: boolean;
  /** `at` of the run's `run-queued`. */
  createdAt: string;
}

/** One entry of a shard stream: the events of one append, or why it could not be read. */
export interface ShardEntry {
  /** The stream entry id. */
  id: string;
  /** The run the entry belongs to (`""` when the entry does not say). */
  runId: string;
  /** The entry's size: the length of its field names and values together. */
  size: number;
  /** The events, in seq order, when every one is an event (one, in an entry of the per-event format). */
  events?: RunEvent[];
  /** Why the entry is not events of a run of its stream's shard, otherwise. */
  error?: string;
  /**
   * When the run's log and head expire, in ms since the epoch: given by the
   * append that settled the run (`append-11.lua`), absent from any other entry
   * and from entries of writers older than it.
   */
  expiresAt?: number;
  /**
   * True when the append that opened the run indexed it as queued (its
   * active, agent's, tenant's runs and deadline: `append-11.lua`), so that
   * the collector writes nothing for it; absent from entries of writers
   * older than it.
   */
  indexed?: true;
  /**
   * True when the append that settled the run moved it from the active runs
   * to its settled status's runs and gave its children set their expiry, as
   * the append of the version before `childrenExpired` did, so that the
   * collector only stores its result; only beside `expiresAt`.
   */
  moved?: true;
  /**
   * True when the append that settled the run gave its children set their
   * expiry (or knew from its head that it has none) without moving its
   * indexes (`append-11.lua`), so that the collector moves the run and leaves
   * its children be; only beside `expiresAt`, absent from entries of writers
   * older than it.
   */
  childrenExpired?: true;
  /**
   * The run's `run-queued` as its head summarises it, on the first entry
   * after a quiet opening (an opening that wrote no entry: its run has
   * neither a budget nor a deadline, and was indexed as queued by it); absent
   * from every other entry, and read as absent when it is not such a summary.
   */
  queued?: QueuedSummary;
}

type DecodedAll = { ok: true; events: RunEvent[] } | { ok: false; error: string };

/** The `[type, at, data]` arguments of one event for the append script. */
export function encodeEventArgs(event: NewEvent): [string, string, string] {
  return [event.type, event.at, JSON.stringify(event.data)];
}

/**
 * The `events` field the append script writes for `events` (in the log and
 * the shard stream): `[[type, at, data], …]`, each data as encoded for the
 * script. Types and times hold no character that Lua's cjson escapes
 * otherwise than `JSON.stringify` does, so the text is the script's, byte for byte.
 */
export function appendedEventsJson(events: readonly NewEvent[]): string {
  const listed = events.map((event) => {
    const [type, at, data] = encodeEventArgs(event);
    return `[${JSON.stringify(type)},${JSON.stringify(at)},${data}]`;
  });
  return `[${listed.join(",")}]`;
}

/** The value of the field `name` (its first occurrence), or undefined. Entries have a handful of fields. */
function fieldOf(fields: StreamFields, name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
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

/** The fields of a stored event in `fields` (a log entry, or a shard entry of one event). */
function decodeEventFields(runId: string, fields: StreamFields): StoredEventDecoding {
  return decodeStoredEvent(runId, {
    seq: fieldOf(fields, "seq"),
    type: fieldOf(fields, "type"),
    at: fieldOf(fields, "at"),
    data: fieldOf(fields, "data"),
  });
}

/** The events of a shard entry of one append: `events` as `[type, at, data]`, numbered from `seq`. */
function decodeAppendEvents(runId: string, firstSeq: number, eventsJson: string): DecodedAll {
  let listed: unknown;
  try {
    listed = JSON.parse(eventsJson);
  } catch {
    return { ok: false, error: "events: not JSON" };
  }
  if (!Array.isArray(listed) || listed.length === 0) {
    return { ok: false, error: "events: not a list of events" };
  }
  const events: RunEvent[] = [];
  for (let index = 0; index < listed.length; index++) {
    const item: unknown = listed[index];
    const fields: readonly unknown[] = Array.isArray(item) ? item : [];
    // Read by index, not destructured: no iterator an event.
    const checked = checkStoredEvent(runId, {
      seq: firstSeq + index,
      type: fields[0],
      at: fields[1],
      data: fields[2],
    });
    if (!checked.ok) return { ok: false, error: `event ${index + 1}: ${checked.error}` };
    events.push(checked.event);
  }
  return { ok: true, events };
}

/** The events of a log or shard entry, in either format: one append's (`events`), or one event's. */
function decodeEntryEvents(runId: string, fields: StreamFields): DecodedAll {
  const eventsJson = fieldOf(fields, "events");
  if (eventsJson !== undefined) {
    return decodeAppendEvents(runId, Number(fieldOf(fields, "seq")), eventsJson);
  }
  const decoded = decodeEventFields(runId, fields);
  return decoded.ok ? { ok: true, events: [decoded.event] } : decoded;
}

/** The `queued` field of a shard entry, or undefined when there is none or it is not a summary. */
function decodeQueuedSummary(json: string | undefined): QueuedSummary | undefined {
  if (json === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { agent, rootRunId, parentRunId, tenant, depth, hasSchema, createdAt } = value as Record<
    string,
    unknown
  >;
  if (
    typeof agent !== "string" ||
    typeof rootRunId !== "string" ||
    typeof createdAt !== "string" ||
    typeof hasSchema !== "boolean" ||
    !Number.isSafeInteger(depth) ||
    (parentRunId !== undefined && typeof parentRunId !== "string") ||
    (tenant !== undefined && typeof tenant !== "string")
  ) {
    return undefined;
  }
  const summary: QueuedSummary = { agent, rootRunId, depth: depth as number, hasSchema, createdAt };
  if (parentRunId !== undefined) summary.parentRunId = parentRunId;
  if (tenant !== undefined) summary.tenant = tenant;
  return summary;
}

/** Why `runId` cannot be the run of an entry of `shard`'s stream; undefined when it can. */
function foreignRun(runId: string, shard: number): string | undefined {
  if (runId === "") return "runId: missing";
  if (!isRunId(runId)) return `runId: not a run id (${JSON.stringify(runId)})`;
  const itsShard = shardOfRunId(runId);
  return itsShard === shard
    ? undefined
    : `runId: a run of shard ${itsShard}, foreign to the stream of shard ${shard}`;
}

/**
 * The events of one run-log entry, in seq order (one event, or one append's),
 * decoded without validating their data again: the append validated it
 * before the fenced script wrote it (core's `decodeStoredEvent`). Throws an
 * {@link ErrandError} `invalid_event` when the entry is not events: the log
 * is the truth, so a broken entry is an error, not something to skip.
 */
export function decodeLogEntry(runId: string, [id, fields]: StreamEntry): RunEvent[] {
  const decoded = decodeEntryEvents(runId, fields);
  if (decoded.ok) return decoded.events;
  throw new ErrandError(
    "invalid_event",
    `run ${runId}: log entry ${id} is not a valid event: ${decoded.error}`,
    { details: { runId, entryId: id } },
  );
}

/**
 * One entry of `shard`'s stream, decoded, in either format, without
 * validating its events' data again (the append did, before the fenced script
 * wrote the entry). Never throws: an entry that is malformed (no run id, not
 * events: an unknown type, a seq that is not a positive whole number, no
 * `at`, data that is not an object) or foreign (the run id of another
 * shard, or no run id at all) comes back with `error` (a collector
 * dead-letters it).
 */
export function decodeShardEntry(shard: number, [id, fields]: StreamEntry): ShardEntry {
  const runId = fieldOf(fields, "runId") ?? "";
  let size = 0;
  // Indexed, not `for … of`: an iterator result a field, in a function that runs an entry at a time.
  for (let i = 0; i < fields.length; i++) size += fields[i]!.length;
  const foreign = foreignRun(runId, shard);
  if (foreign !== undefined) return { id, runId, size, error: foreign };
  const decoded = decodeEntryEvents(runId, fields);
  if (!decoded.ok) return { id, runId, size, error: decoded.error };
  const entry: ShardEntry = { id, runId, size, events: decoded.events };
  const expiresAt = Number(fieldOf(fields, "expiresAt"));
  if (Number.isSafeInteger(expiresAt) && expiresAt > 0) entry.expiresAt = expiresAt;
  if (fieldOf(fields, "indexed") === "1") entry.indexed = true;
  if (entry.expiresAt !== undefined && fieldOf(fields, "moved") === "1") entry.moved = true;
  if (entry.expiresAt !== undefined && fieldOf(fields, "childrenExpired") === "1")
    entry.childrenExpired = true;
  const queued = decodeQueuedSummary(fieldOf(fields, "queued"));
  if (queued !== undefined) entry.queued = queued;
  return entry;
}
