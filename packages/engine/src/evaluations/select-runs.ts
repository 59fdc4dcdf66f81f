/**
 * Which recorded runs an evaluation takes: the runIds given, the runIds a
 * saved set resolved to when it was saved, or the settled runs a filter matches — by agent and status through the run indexes
 * (`list`, newest first), by creation time, and by the metadata each was
 * fired with (read from its `run-queued`) — up to the filter's `limit`.
 */
import type { Page } from "@errand/core";
import { ErrandError } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { ListOptions, RunSummary } from "../reads/list.js";
import type {
  EvaluationSet,
  ResolvableSelection,
  RunFilter,
  RunSelection,
} from "./evaluation-record.js";

/** The default number of runs a filter takes. */
const DEFAULT_FILTER_LIMIT = 100;

/** How the runs are listed: the client's `list`. */
export type ListRuns = (options: ListOptions) => Promise<Page<RunSummary>>;

function isSettled(run: RunSummary): boolean {
  return run.status === "succeeded" || run.status === "failed" || run.status === "cancelled";
}

/**
 * Whether the run `runId` is a recorded run the filter takes: fired with
 * every label of `wanted`, and no case of an evaluation (a candidate's run
 * on the fleet is never evaluated as if it were production's).
 */
async function isRecordedRunWith(
  store: EventStore,
  runId: string,
  wanted: Record<string, string>,
): Promise<boolean> {
  const [queued] = await store.readLog(runId, { untilSeq: 1 });
  if (queued?.type !== "run-queued" || queued.data.evaluation !== undefined) return false;
  const metadata = queued.data.metadata ?? {};
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
      if (!(await isRecordedRunWith(store, run.runId, filter.metadata ?? {}))) continue;
      found.push(run.runId);
      if (found.length >= limit) return found;
    }
    cursor = listed.hasMore ? listed.nextCursor : undefined;
  } while (cursor !== undefined);
  return found;
}

/** The runIds of `selection`, in case order: as given, or oldest first for a filter. */
export async function resolveRuns(
  listRuns: ListRuns,
  store: EventStore,
  selection: ResolvableSelection,
): Promise<string[]> {
  if ("runIds" in selection) return [...new Set(selection.runIds)];
  return (await filteredRunIds(listRuns, store, selection.filter)).reverse();
}

/** How a saved set is read by name. */
export type ReadSet = (name: string) => Promise<EvaluationSet | undefined>;

/** The runIds of `selection`, in case order; a saved set's as it saved them (`not_found` when there is no such set). */
export async function selectRuns(
  listRuns: ListRuns,
  store: EventStore,
  readSet: ReadSet,
  selection: RunSelection,
): Promise<string[]> {
  if (!("set" in selection)) return resolveRuns(listRuns, store, selection);
  const set = await readSet(selection.set);
  if (set === undefined) {
    throw new ErrandError(
      "not_found",
      `there is no saved run set ${selection.set}: save it first (errand eval sets save)`,
    );
  }
  return set.runIds;
}
