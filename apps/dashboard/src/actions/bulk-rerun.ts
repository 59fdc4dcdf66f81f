/**
 * Re-running runs at once from the runs list — a selection (`runIds`), or
 * the runs a filter of the list matches (`filter`), a page at a time — as
 * `errand.rerun` does (docs/guide/reruns.md): each source run answers for
 * itself (re-fired, or refused with its code, e.g.
 * `agent_version_unavailable`; a malformed runId `invalid_spec`), at most {@link MAX_RERUN} a call, and a
 * filter's `nextCursor` goes on with the older runs it matches. Every call of
 * one request carries the same `requestKey`, so a call sent again (a retry
 * after a lost answer) fires no run twice.
 */
import { randomUUID } from "node:crypto";
import { batch, isRunId } from "@errand/core/ops";
import { MAX_RERUN, type RerunItem, type RerunOptions, type RerunResult } from "@errand/engine";
import { z } from "zod";
import type { DashboardContext } from "../context.js";
import type { SearchMetadataReader } from "../reads/search-metadata.js";
import { searchRuns } from "../reads/search-runs.js";

/** The runs list's filters a re-run by filter may name: one at least, any status. */
export const RerunFilter = z
  .strictObject({
    q: z.string().trim().min(1).max(200).optional(),
    status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]).optional(),
    agent: z.string().min(1).max(200).optional(),
    parent: z.string().min(1).optional(),
  })
  .refine((filter) => Object.values(filter).some((value) => value !== undefined), {
    message: "name at least one of q, status, agent, parent",
  });
/** A filter of the runs list, for a re-run. */
export type RerunFilter = z.infer<typeof RerunFilter>;

/** The body of `POST /api/runs/rerun`: `runIds` or `filter` (with `cursor` and `limit`), not both. */
export const BulkRerunBody = z
  .strictObject({
    runIds: z.array(z.string()).min(1).max(MAX_RERUN).optional(),
    filter: RerunFilter.optional(),
    /** With `filter`: the `nextCursor` of the previous call. */
    cursor: z.string().min(1).max(500).optional(),
    /** With `filter`: how many matching runs this call re-runs, at most (and by default) {@link MAX_RERUN}. */
    limit: z.number().int().min(1).max(MAX_RERUN).optional(),
    /** `"original"` (default), `"newest"`, or a version by name. */
    version: z.string().min(1).max(128).optional(),
    /** Names the request: the same key again fires no run twice. Default: a new key each call. */
    requestKey: z.string().min(1).max(100).optional(),
  })
  .refine((body) => (body.runIds === undefined) !== (body.filter === undefined), {
    message: "send runIds (a selection) or filter (the runs list's filters), one of them",
  })
  .refine((body) => body.filter !== undefined || (body.cursor ?? body.limit) === undefined, {
    message: "cursor and limit go with filter, not with runIds",
  });
/** A bulk re-run request. */
export type BulkRerunBody = z.infer<typeof BulkRerunBody>;

/** `POST /api/runs/rerun`: `errand.rerun`'s answer, one result per source run in order. */
export type BulkRerunResult = RerunResult;

/** Re-runs the selection `runIds`, each once, in order: a malformed runId answers `invalid_spec` for itself. */
async function rerunSelection(
  context: DashboardContext,
  runIds: readonly string[],
  common: Pick<RerunOptions, "version" | "idempotencyKey">,
): Promise<BulkRerunResult> {
  const asked = [...new Set(runIds)];
  const wellFormed = asked.filter((runId) => isRunId(runId));
  const rerun =
    wellFormed.length === 0
      ? []
      : (await context.errand.rerun({ ...common, runs: wellFormed })).results;
  const answers = rerun.values();
  const results = asked.map(
    (runId): RerunItem =>
      isRunId(runId)
        ? answers.next().value!
        : {
            sourceRunId: runId,
            ok: false,
            error: { code: "invalid_spec", message: `not a run id: ${JSON.stringify(runId)}` },
            retryable: false,
          },
  );
  return { ...batch(results), hasMore: false };
}

/** The source runs of a call with a search (`q`): a page of the list's search, and where it goes on. */
async function searchedSources(
  context: DashboardContext,
  reader: SearchMetadataReader,
  body: BulkRerunBody & { filter: RerunFilter & { q: string } },
): Promise<{ runIds: string[]; hasMore: boolean; nextCursor?: string }> {
  const { q, status, agent, parent } = body.filter;
  const found = await searchRuns(context, reader, {
    q,
    ...(status === undefined ? {} : { status }),
    ...(agent === undefined ? {} : { agent }),
    ...(parent === undefined ? {} : { parentRunId: parent }),
    limit: body.limit ?? MAX_RERUN,
    ...(body.cursor === undefined ? {} : { cursor: body.cursor }),
  });
  return {
    runIds: found.items.map((hit) => hit.runId),
    hasMore: found.hasMore,
    ...(found.nextCursor === undefined ? {} : { nextCursor: found.nextCursor }),
  };
}

/**
 * Re-runs each run `body` names, or a page of the runs its filter matches
 * (with `q`, the list's search, read through `reader`).
 */
export async function rerunRuns(
  context: DashboardContext,
  reader: SearchMetadataReader,
  body: BulkRerunBody,
): Promise<BulkRerunResult> {
  const common: Pick<RerunOptions, "version" | "idempotencyKey"> = {
    version: body.version ?? "original",
    idempotencyKey: body.requestKey ?? randomUUID(),
  };
  const { filter } = body;
  if (filter === undefined) return rerunSelection(context, body.runIds ?? [], common);
  if (filter.q === undefined) {
    return context.errand.rerun({
      ...common,
      filter: {
        ...(filter.status === undefined ? {} : { status: filter.status }),
        ...(filter.agent === undefined ? {} : { agent: filter.agent }),
        ...(filter.parent === undefined ? {} : { parentRunId: filter.parent }),
      },
      ...(body.cursor === undefined ? {} : { cursor: body.cursor }),
      ...(body.limit === undefined ? {} : { limit: body.limit }),
    });
  }
  const { runIds, hasMore, nextCursor } = await searchedSources(context, reader, {
    ...body,
    filter: { ...filter, q: filter.q },
  });
  const going = { hasMore, ...(nextCursor === undefined ? {} : { nextCursor }) };
  // A search page may find none of the runs it looked at, and still go on.
  if (runIds.length === 0) return { total: 0, succeeded: 0, failed: 0, results: [], ...going };
  const rerun = await context.errand.rerun({ ...common, runs: runIds });
  return { ...rerun, ...going };
}
