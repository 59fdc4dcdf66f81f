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
 *   runs: a page may hold fewer matches than asked while `hasMore` is true
 *   (`scanned` says how many runs it looked at); its `nextCursor` continues
 *   with older runs.
 */
import {
  encodeCursor,
  isRunId,
  isSecretKey,
  type LimitBounds,
  type Page,
  page,
  resolveLimit,
} from "@errand/core";
import { LIST_LIMITS, type ListOptions, type RunSummary } from "@errand/engine";
import type { DashboardContext } from "../context.js";
import { readRunQueued } from "./run-queued.js";
import { readRunSummary } from "./run-summary.js";

/** How many runs one search page looks at, at most. */
export const SEARCH_SCAN_LIMIT = 1_000;

/** The default and maximum `limit` of a search page. */
export const SEARCH_LIMITS: LimitBounds = { default: 50, max: 200 };

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

async function matchOf(
  context: DashboardContext,
  summary: RunSummary,
  text: string,
): Promise<SearchMatch | undefined> {
  if (summary.runId.startsWith(text.toUpperCase())) return { in: "runId" };
  const queued = await readRunQueued(context, summary.runId);
  const wanted = text.toLowerCase();
  for (const [key, value] of Object.entries(queued?.data.metadata ?? {})) {
    if (isSecretKey(key)) continue; // never an oracle for a secret's value
    if (value.toLowerCase().includes(wanted)) return { in: "metadata", key, value };
  }
  return undefined;
}

/** A page of runs matching `options.q`: see the module documentation. */
export async function searchRuns(
  context: DashboardContext,
  options: SearchOptions,
): Promise<SearchPage> {
  const q = options.q.trim();
  const limit = resolveLimit(options.limit, SEARCH_LIMITS);
  if (isRunId(q)) return findExact(context, { ...options, q });
  const hits: SearchHit[] = [];
  let scanned = 0;
  let cursor = options.cursor;
  let last: RunSummary | undefined;
  let exhausted = false;
  while (hits.length < limit && scanned < SEARCH_SCAN_LIMIT && !exhausted) {
    const batch = await context.errand.list({
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      ...(options.parentRunId === undefined ? {} : { parentRunId: options.parentRunId }),
      limit: Math.min(LIST_LIMITS.max, SEARCH_SCAN_LIMIT - scanned),
      ...(cursor === undefined ? {} : { cursor }),
    });
    const matches = await Promise.all(batch.items.map((item) => matchOf(context, item, q)));
    let index = 0;
    for (; index < batch.items.length && hits.length < limit; index++) {
      const item = batch.items[index]!;
      const match = matches[index];
      if (match !== undefined) hits.push({ ...item, match });
      last = item;
    }
    scanned += index;
    exhausted = !batch.hasMore && index === batch.items.length;
    cursor = batch.nextCursor;
  }
  const more =
    exhausted || last === undefined
      ? { hasMore: false }
      : { hasMore: true, nextCursor: encodeCursor([last.createdAt, last.runId]) };
  return { ...page(hits, more), scanned };
}
