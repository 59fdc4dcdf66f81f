/**
 * A run's timeline, a page at a time (`{ items, count, hasMore, nextCursor? }`
 * in seq order, the cursor carrying the last seq), and one event whole.
 */
import { ErrandError, type Page } from "@errand/core";
import {
  decodeCursor,
  encodeCursor,
  type LimitBounds,
  page,
  resolveLimit,
  runNotFound,
} from "@errand/core/ops";
import type { DashboardContext } from "../context.js";
import { fullTimelineEvent, type TimelineEvent, timelineEvent } from "../present/timeline.js";
import { requireRunId } from "./run-view.js";

/** The default and maximum `limit` of an events page. */
const EVENTS_LIMITS: LimitBounds = { default: 200, max: 1_000 };

/** Options of {@link readEventsPage}. */
export interface EventsPageOptions {
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

function seqOfCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const [seq] = decodeCursor(cursor);
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) {
    throw new ErrandError("invalid_spec", "invalid cursor: it is not a cursor of a run's events");
  }
  return seq;
}

/** A page of the run's timeline. Throws `invalid_spec` (runId, limit, cursor) or `not_found`. */
export async function readEventsPage(
  context: DashboardContext,
  runId: string,
  options: EventsPageOptions = {},
): Promise<Page<TimelineEvent>> {
  requireRunId(runId);
  const limit = resolveLimit(options.limit, EVENTS_LIMITS);
  const afterSeq = seqOfCursor(options.cursor);
  const events = await context.errand.store.readLog(runId, { afterSeq, count: limit + 1 });
  if (events.length === 0 && (await context.errand.store.readHead(runId)) === undefined) {
    throw runNotFound(runId);
  }
  const items = events.slice(0, limit).map(timelineEvent);
  const last = items.at(-1);
  const hasMore = events.length > limit && last !== undefined;
  return page(items, hasMore ? { hasMore, nextCursor: encodeCursor([last.seq]) } : { hasMore });
}

/** The event `seq` of the run whole (secrets redacted). Throws `invalid_spec` or `not_found`. */
export async function readFullEvent(
  context: DashboardContext,
  runId: string,
  seq: number,
): Promise<TimelineEvent> {
  requireRunId(runId);
  if (!Number.isSafeInteger(seq) || seq < 1) {
    throw new ErrandError(
      "invalid_spec",
      `invalid seq ${seq}: a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`,
    );
  }
  const [event] = await context.errand.store.readLog(runId, { afterSeq: seq - 1, untilSeq: seq });
  if (event === undefined) {
    throw new ErrandError("not_found", `run ${runId} has no event ${seq}`, {
      details: { runId, seq },
    });
  }
  return fullTimelineEvent(event);
}
