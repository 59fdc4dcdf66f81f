/**
 * Finding runs by what a person remembers of them: a runId, the start of
 * one, or a metadata value.
 *
 * - A whole runId is looked up directly: found whatever its age.
 * - Anything else is matched against the runs `list` returns (newest first,
 *   with the same status, agent and parent filters): a runId that starts
 *   with the text (any case), or a metadata value that contains it (any
 *   case), read from each run's `run-queued` — values of secret keys (core's
 *   `isSecretKey`) are never searched. The run indexes hold no
 *   metadata, so one page looks at no more than {@link SEARCH_SCAN_LIMIT}
 *   runs, and reads no more than `SEARCH_READ_BUDGET_BYTES` of `run-queued`
 *   events (runs searched before cost nothing: see `search-metadata.ts`). A
 *   page may then hold fewer matches than asked while `hasMore` is true
 *   (`scanned` says how many runs it looked at); its `nextCursor` continues
 *   with older runs.
 */
import { isSecretKey, type Page } from "@errand/core";
import { encodeCursor, isRunId, type LimitBounds, page, resolveLimit } from "@errand/core/ops";
import type { ListOptions, RunSummary } from "@errand/engine";
import { LIST_LIMITS } from "@errand/engine/ops";
import type { DashboardContext } from "../context.js";
import { readRunSummary } from "./run-summary.js";
import {
  type ReadBudget,
  SEARCH_READ_BUDGET_BYTES,
  type SearchedMetadata,
  type SearchMetadataReader,
} from "./search-metadata.js";

/** How many runs one search page looks at, at most. */
const SEARCH_SCAN_LIMIT = 1_000;

/** The default and maximum `limit` of a search page. */
const SEARCH_LIMITS: LimitBounds = { default: 50, max: 200 };

/** How a run matched the search. */
export type SearchMatch =
  | { in: "runId" }
  | {
      in: "metadata";
      key: string;
      value: string;
    };

/** A run found by a search: its summary and what matched. */
export type SearchHit = RunSummary & { match: SearchMatch };

/** A page of search hits, with how many runs it looked at. */
export type SearchPage = Page<SearchHit> & { scanned: number };

/** Options of {@link searchRuns}: `list`'s filters and the text `q`. */
export interface SearchOptions extends ListOptions {
  q: string;
}

function passesFilters(summary: RunSummary, options: ListOptions): boolean {
  return (
    (options.status === undefined || summary.status === options.status) &&
    (options.agent === undefined || summary.agent === options.agent) &&
    (options.parentRunId === undefined || summary.parentRunId === options.parentRunId)
  );
}

async function findExact(context: DashboardContext, options: SearchOptions): Promise<SearchPage> {
  const summary = await readRunSummary(context, options.q);
  const items: SearchHit[] =
    summary !== undefined && passesFilters(summary, options)
      ? [{ ...summary, match: { in: "runId" } }]
      : [];
  return { ...page(items, { hasMore: false }), scanned: summary === undefined ? 0 : 1 };
}

/** How many runs' metadata is read at once: what a page may read past its budget. */
const READ_GROUP = 8;

function metadataMatch(metadata: SearchedMetadata, text: string): SearchMatch | undefined {
  const wanted = text.toLowerCase();
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (isSecretKey(key)) continue; // never an oracle for a secret's value
    if (value.toLowerCase().includes(wanted)) return { in: "metadata", key, value };
  }
  return undefined;
}

/**
 * Matches `items` in order, reading their metadata a group at a time within
 * `budget`. Stops at `room` hits, or at the first run whose metadata the
 * spent budget left unread; answers the hits and how many runs it looked at.
 */
async function matchInOrder(
  reader: SearchMetadataReader,
  items: readonly RunSummary[],
  text: string,
  room: number,
  budget: ReadBudget,
): Promise<{ hits: SearchHit[]; looked: number }> {
  const hits: SearchHit[] = [];
  const prefix = text.toUpperCase();
  let looked = 0;
  while (looked < items.length && hits.length < room) {
    const group = items.slice(looked, looked + READ_GROUP);
    const unmatched = group.filter((item) => !item.runId.startsWith(prefix));
    const metadata = await reader.read(
      unmatched.map((item) => item.runId),
      budget,
    );
    for (const item of group) {
      if (hits.length >= room) return { hits, looked };
      if (item.runId.startsWith(prefix)) {
        hits.push({ ...item, match: { in: "runId" } });
      } else {
        if (!metadata.has(item.runId)) return { hits, looked };
        const match = metadataMatch(metadata.get(item.runId) ?? null, text);
        if (match !== undefined) hits.push({ ...item, match });
      }
      looked += 1;
    }
  }
  return { hits, looked };
}

/** A page of runs matching `options.q`, reading metadata through `reader`: see the module documentation. */
export async function searchRuns(
  context: DashboardContext,
  reader: SearchMetadataReader,
  options: SearchOptions,
): Promise<SearchPage> {
  const q = options.q.trim();
  const limit = resolveLimit(options.limit, SEARCH_LIMITS);
  if (isRunId(q)) return findExact(context, { ...options, q });
  const budget: ReadBudget = { remaining: SEARCH_READ_BUDGET_BYTES };
  const hits: SearchHit[] = [];
  let scanned = 0;
  let cursor = options.cursor;
  let last: RunSummary | undefined;
  let exhausted = false;
  let stopped = false;
  while (hits.length < limit && scanned < SEARCH_SCAN_LIMIT && !exhausted && !stopped) {
    const batch = await context.errand.list({
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      ...(options.parentRunId === undefined ? {} : { parentRunId: options.parentRunId }),
      limit: Math.min(LIST_LIMITS.max, SEARCH_SCAN_LIMIT - scanned),
      ...(cursor === undefined ? {} : { cursor }),
    });
    const found = await matchInOrder(reader, batch.items, q, limit - hits.length, budget);
    hits.push(...found.hits);
    last = batch.items[found.looked - 1] ?? last;
    scanned += found.looked;
    stopped = found.looked < batch.items.length;
    exhausted = !batch.hasMore && !stopped;
    cursor = batch.nextCursor;
  }
  const more =
    exhausted || last === undefined
      ? { hasMore: false }
      : { hasMore: true, nextCursor: encodeCursor([last.createdAt, last.runId]) };
  return { ...page(hits, more), scanned };
}
