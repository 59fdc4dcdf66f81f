/**
 * Which recorded runs an evaluation takes: the runIds given, or the settled
 * runs a filter matches — by agent and status through the run indexes
 * (`list`, newest first), by creation time, and by the metadata each was
 * fired with (read from its `run-queued`) — up to the filter's `limit`.
 */
import type { Page } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { ListOptions, RunSummary } from "../reads/list.js";
import type { RunFilter, RunSelection } from "./evaluation-record.js";

/** The default number of runs a filter takes. */
const DEFAULT_FILTER_LIMIT = 100;

/** How the runs are listed: the client's `list`. */
export type ListRuns = (options: ListOptions) => Promise<Page<RunSummary>>;

function isSettled(run: RunSummary): boolean {
  return run.status === "succeeded" || run.status === "failed" || run.status === "cancelled";
}

async function hasMetadata(
  store: EventStore,
  runId: string,
  wanted: Record<string, string>,
): Promise<boolean> {
  const [queued] = await store.readLog(runId, { untilSeq: 1 });
  const metadata = queued?.type === "run-queued" ? (queued.data.metadata ?? {}) : {};
  return Object.entries(wanted).every(([key, value]) => metadata[key] === value);
}

async function filteredRunIds(
  listRuns: ListRuns,
  store: EventStore,
  filter: RunFilter,
): Promise<string[]> {
  const limit = filter.limit ?? DEFAULT_FILTER_LIMIT;
  const since = filter.since === undefined ? undefined : Date.parse(filter.since);
  const until = filter.until === undefined ? undefined : Date.parse(filter.until);
  const found: string[] = [];
  let cursor: string | undefined;
  do {
    const listed = await listRuns({
      ...(filter.agent === undefined ? {} : { agent: filter.agent }),
      ...(filter.status === undefined ? {} : { status: filter.status }),
      limit: 500,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const run of listed.items) {
      const createdAt = Date.parse(run.createdAt);
      if (since !== undefined && createdAt < since) return found;
      if ((until !== undefined && createdAt >= until) || !isSettled(run)) continue;
      if (filter.metadata !== undefined && !(await hasMetadata(store, run.runId, filter.metadata)))
        continue;
      found.push(run.runId);
      if (found.length >= limit) return found;
    }
    cursor = listed.hasMore ? listed.nextCursor : undefined;
  } while (cursor !== undefined);
  return found;
}

/** The runIds of `selection`, in case order: as given, or oldest first for a filter. */
export async function selectRuns(
  listRuns: ListRuns,
  store: EventStore,
  selection: RunSelection,
): Promise<string[]> {
  if ("runIds" in selection) return [...new Set(selection.runIds)];
  return (await filteredRunIds(listRuns, store, selection.filter)).reverse();
}
