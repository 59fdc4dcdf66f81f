/**
 * The open runs (queued or running) a filter of the runs list matches, for
 * a bulk cancel by filter: the list's own reads (`list` by status, agent and
 * parent; with `q`, the list's search), newest first, at most `max` of
 * them, and whether more match.
 */
import type { ListOptions, RunSummary } from "@errand/engine";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import type { SearchMetadataReader } from "../reads/search-metadata.js";
import { searchRuns } from "../reads/search-runs.js";

/** The runs list's filters a bulk cancel may name: one at least, a status only an open one. */
export const RunsFilter = z
  .strictObject({
    q: z.string().trim().min(1).max(200).optional(),
    status: z.enum(["queued", "running"]).optional(),
    agent: z.string().min(1).max(200).optional(),
    parent: z.string().min(1).optional(),
  })
  .refine((filter) => Object.values(filter).some((value) => value !== undefined), {
    message: "name at least one of q, status, agent, parent",
  });
/** A filter of the runs list. */
export type RunsFilter = z.infer<typeof RunsFilter>;

/** Open runs matching a filter. */
export interface OpenRunsMatching {
  /** Their runIds, newest first within each status (queued, then running). */
  runIds: string[];
  /** Whether more open runs match than were answered. */
  more: boolean;
}

/** The most pages of one status a search looks through (each looks at up to 1,000 runs). */
const MAX_SEARCH_PAGES = 10;

/** Up to `wanted` runs of status `status` matching `filter`, newest first. */
async function matchingOfStatus(
  context: DashboardContext,
  reader: SearchMetadataReader,
  filter: RunsFilter,
  status: "queued" | "running",
  wanted: number,
): Promise<RunSummary[]> {
  const options: ListOptions = {
    status,
    ...(filter.agent === undefined ? {} : { agent: filter.agent }),
    ...(filter.parent === undefined ? {} : { parentRunId: filter.parent }),
  };
  if (filter.q === undefined)
    return (await context.errand.list({ ...options, limit: wanted })).items;
  const found: RunSummary[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_SEARCH_PAGES && found.length < wanted; pages++) {
    const limit = wanted - found.length;
    const page = await searchRuns(context, reader, {
      ...options,
      q: filter.q,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    found.push(...page.items);
    if (!page.hasMore || page.nextCursor === undefined) break;
    cursor = page.nextCursor;
  }
  return found;
}

/** The open runs `filter` matches: at most `max`, and whether there are more. */
export async function openRunsMatching(
  context: DashboardContext,
  reader: SearchMetadataReader,
  filter: RunsFilter,
  max: number,
): Promise<OpenRunsMatching> {
  const statuses = filter.status === undefined ? (["queued", "running"] as const) : [filter.status];
  const runIds: string[] = [];
  for (const status of statuses) {
    const found = await matchingOfStatus(context, reader, filter, status, max + 1 - runIds.length);
    for (const run of found) if (!runIds.includes(run.runId)) runIds.push(run.runId);
    if (runIds.length > max) break;
  }
  return { runIds: runIds.slice(0, max), more: runIds.length > max };
}
