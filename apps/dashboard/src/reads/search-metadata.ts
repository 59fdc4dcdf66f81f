/**
 * The run metadata a search matches, read within a budget. The run indexes
 * hold no metadata, so it is read from each run's `run-queued` event — which
 * also holds the run's input, up to 256 KiB. A search page may read at most
 * {@link SEARCH_READ_BUDGET_BYTES} of such events; and since a `run-queued`
 * never changes, the metadata read is kept (up to
 * {@link SEARCH_CACHE_BYTES}, the least recently used dropped first), so
 * searching the same runs again reads nothing.
 */
import type { DashboardContext } from "../context.js";
import { readSizedRunQueued } from "./run-queued.js";

/** The `run-queued` bytes (characters) one search page may read: 4 MiB. */
export const SEARCH_READ_BUDGET_BYTES = 4 * 1024 * 1024;

/** The metadata kept from earlier searches: 8 MiB (as JSON text). */
const SEARCH_CACHE_BYTES = 8 * 1024 * 1024;

/** What a search page may still read, in characters; it may go below zero by one read. */
export interface ReadBudget {
  remaining: number;
}

/** A run's metadata; `null` when its log is gone (expired). */
export type SearchedMetadata = Readonly<Record<string, string>> | null;

/** Metadata for searches, shared by every search of one dashboard. */
export interface SearchMetadataReader {
  /**
   * The metadata of `runIds`: kept ones as they are, the others read at once
   * (together) while `budget` lasts, their size taken from it. With the
   * budget spent, runs not kept are left out of the answer.
   */
  read(runIds: readonly string[], budget: ReadBudget): Promise<Map<string, SearchedMetadata>>;
}

/** A reader keeping up to `cacheBytes` of metadata. */
export function createSearchMetadataReader(
  context: DashboardContext,
  cacheBytes: number = SEARCH_CACHE_BYTES,
): SearchMetadataReader {
  /** Least recently used first (a Map keeps insertion order). */
  const kept = new Map<string, { metadata: Record<string, string>; size: number }>();
  let keptBytes = 0;

  function keep(runId: string, metadata: Record<string, string>): void {
    const size = runId.length + JSON.stringify(metadata).length;
    if (size > cacheBytes / 16) return;
    kept.set(runId, { metadata, size });
    keptBytes += size;
    for (const [oldest, entry] of kept) {
      if (keptBytes <= cacheBytes) break;
      kept.delete(oldest);
      keptBytes -= entry.size;
    }
  }

  return {
    async read(runIds, budget) {
      const found = new Map<string, SearchedMetadata>();
      const missing: string[] = [];
      for (const runId of runIds) {
        const entry = kept.get(runId);
        if (entry === undefined) {
          missing.push(runId);
          continue;
        }
        kept.delete(runId);
        kept.set(runId, entry);
        found.set(runId, entry.metadata);
      }
      if (missing.length === 0 || budget.remaining <= 0) return found;
      const read = await Promise.all(missing.map((runId) => readSizedRunQueued(context, runId)));
      missing.forEach((runId, index) => {
        const queued = read[index];
        if (queued === undefined) {
          found.set(runId, null);
          return;
        }
        budget.remaining -= queued.chars;
        found.set(runId, queued.event.data.metadata);
        keep(runId, queued.event.data.metadata);
      });
      return found;
    },
  };
}
