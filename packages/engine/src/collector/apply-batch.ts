/**
 * One batch of shard stream entries, applied: the entries (each the events of
 * one append) are grouped by run and their events folded into the runs'
 * projections, in stream order. A run whose
 * terminal event is in the batch is settled: its result is worked out. Then
 * one script call brings every run settled or queued in the batch up to
 * date in the shard's indexes (a run queued by an append that indexed it,
 * its entry says `indexed`, or opened quietly, the first entry after its
 * opening says `queued`, needs nothing; a run settled by an older append
 * that moved it to its status's index, its entry says `moved`, needs its
 * result only; the others are moved a batch at a time, one ZREM and one ZADD
 * a key) (a run this collector listed when queued, in a
 * call that answered for it, is not written in its agent's runs again when
 * it settles) and stores each settled run's result with a wake-up on the shard's
 * settled channel. Should that call fail, each
 * run is tried in a call of its own, so that
 * one bad run fails alone; every other event needs nothing more. The
 * entries whose effects are written are returned as applied, for the shard
 * loop to acknowledge (`deferred-acknowledgements.ts`). An
 * entry that could not be read, whose events the fold refused, or whose run
 * failed to apply, is not: it stays pending for a later delivery (see `dead-letter.ts`).
 * A Redis out of memory refuses
 * the index call: it is made again, with backoff, until Redis has room (or
 * the collector stops), so a shortage never fails an entry, never counts
 * against its deliveries and never sends it to the dead letters.
 *
 * Before that call, each settled run with a parent is counted in its
 * parent's children counts (`count-settled-children.ts`): a run whose count
 * could not be written is not indexed, and its entries stay pending.
 *
 * Every effect is idempotent, so an entry delivered twice (a collector killed
 * before the XACK of what it applied, an entry claimed from a slow one) changes nothing the
 * second time: the result is written once and not folded again, and the
 * indexes follow the run's head.
 */
import { isTerminalEventType, type RunEventOf, type RunResult, type RunState } from "@errand/core";
import type { ShardEntry } from "@errand/store";
import {
  type IndexedRun,
  type IndexSegment,
  indexRuns,
  indexSegment,
  type RunToIndex,
} from "@errand/store/ops";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import type { CollectorContext } from "./context.js";
import { countSettledChildren, type SettledChild } from "./count-settled-children.js";
import { foldedResult, readSettledResult } from "./project-result.js";
import { queuedState } from "./queued-summary.js";

/**
 * How far ahead of the collector's clock a settled run's expiry must be for
 * the index call to take its head as there without reading it: a minute,
 * beyond the skew of synchronised clocks (docs/architecture/collector.md).
 */
const HEAD_THERE_MARGIN_MS = 60_000;

/** An entry that could not be applied, and why. */
export interface EntryFailure {
  id: string;
  runId: string;
  error: string;
}

/** What a batch did. */
export interface AppliedBatch {
  /** The entries applied: what they need is written, they are to be acknowledged. */
  applied: string[];
  /** The entries left pending. */
  failures: EntryFailure[];
  /** The runs settled by this batch (their results are written). */
  settled: string[];
}

/** One run's entries of a batch, and its projection once they are folded in. */
interface RunGroup {
  runId: string;
  ids: string[];
  projection: RunState | undefined;
  /** Whether the run's terminal event is among its entries of the batch. */
  settles: boolean;
  /** Its `run-queued`, when among its entries of the batch. */
  queued?: RunEventOf<"run-queued">;
  /** When the run's log and head expire, as the entry of its settling append says; undefined when it does not. */
  expiresAt?: number;
  /** True when the append that opened the run indexed it as queued (its entry says `indexed`, or the first after a quiet opening says `queued`). */
  indexedWhenQueued?: boolean;
  /** True when the append that settled the run, older than this version, moved its indexes and expired its children (its entry says `moved`). */
  moved?: boolean;
  /** True when the append that settled the run expired its children but left its indexes to this collector (its entry says `childrenExpired`). */
  childrenExpired?: boolean;
  /** Its part of the batch's index call, once prepared. */
  segment?: IndexSegment;
}

/** A run group with its part of the index call. */
type PreparedGroup = RunGroup & { segment: IndexSegment };

/**
 * A settled run with its result, before its indexes and result are written.
 * Its deadline is known when it was folded from its `run-queued`.
 */
function settledRunToIndex(
  context: CollectorContext,
  { runId, projection, expiresAt, moved, childrenExpired }: RunGroup,
  result: RunResult,
): RunToIndex {
  const run: IndexedRun = { runId, agent: result.agent, createdAt: result.createdAt };
  if (result.tenant !== undefined) run.tenant = result.tenant;
  if (expiresAt !== undefined) {
    run.expiresAt = expiresAt;
    // Its head expires then: well ahead of now, it is there, and its status is the result's.
    if (expiresAt - context.now().getTime() > HEAD_THERE_MARGIN_MS) run.status = result.status;
  }
  if (moved) run.moved = true;
  if (childrenExpired) run.childrenExpired = true;
  // Listed by this collector's call for its run-queued: the settling call leaves the agent's and tenant's runs be.
  if (context.projections.isListed(runId)) run.listed = true;
  const queued = projection?.queued;
  if (queued === undefined) run.deadlineUnknown = true;
  else if (queued.limits.deadlineAt !== undefined) run.deadlineAt = queued.limits.deadlineAt;
  return { run, result };
}

/** A newly queued run, before its indexes are written. */
function queuedRunToIndex(queued: RunEventOf<"run-queued">): RunToIndex {
  const { agent, tenant, limits } = queued.data;
  const run: IndexedRun = { runId: queued.runId, agent, createdAt: queued.at };
  if (tenant !== undefined) run.tenant = tenant;
  if (limits.deadlineAt !== undefined) run.deadlineAt = limits.deadlineAt;
  return { run };
}

/**
 * What a run's events need from the shard's indexes, once prepared;
 * undefined for nothing. A promise only for a settled run the collector did
 * not fold, whose result is read (`project-result.ts`): a batch whose runs
 * were all folded makes none.
 */
function prepareRun(
  context: CollectorContext,
  group: RunGroup,
): RunToIndex | Promise<RunToIndex> | undefined {
  if (group.settles) {
    const folded = foldedResult(group.projection);
    if (folded !== undefined) return settledRunToIndex(context, group, folded);
    return readSettledResult(context, group.runId).then((result) =>
      settledRunToIndex(context, group, result),
    );
  }
  const { queued } = group;
  return queued === undefined || group.indexedWhenQueued ? undefined : queuedRunToIndex(queued);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Fails every entry of `group` with `error`. */
function failGroup(failures: EntryFailure[], group: RunGroup, error: unknown): void {
  const { ids, runId } = group;
  for (let i = 0; i < ids.length; i++)
    failures.push({ id: ids[i]!, runId, error: describe(error) });
}

/** Appends `items` to `list` (indexed: no iterator, no spread of arguments). */
function pushAll<T>(list: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) list.push(items[i]!);
}

/**
 * Groups the entries by run, in the order of their runs' first entries,
 * folding each of their events into its run's projection (an entry's size
 * shared evenly among its events). An entry that could not be read fails,
 * and so does one whose events the fold refuses (their data is not
 * validated again when read: an event the fold cannot take fails here,
 * alone, and its run is no longer followed). Loops are indexed: this runs
 * for every batch, mostly of one entry.
 */
function groupByRun(
  context: CollectorContext,
  entries: readonly ShardEntry[],
  failures: EntryFailure[],
): RunGroup[] {
  const groups: RunGroup[] = [];
  const byRun = new Map<string, RunGroup>();
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!;
    const { id, runId, events } = entry;
    if (events === undefined) {
      failures.push({ id, runId, error: entry.error ?? "not an event" });
      continue;
    }
    let group = byRun.get(runId);
    const eventSize = entry.size / events.length;
    let projection = group?.projection;
    // The first entry after a quiet opening: the run starts from its run-queued's summary.
    if (entry.queued !== undefined) context.projections.follow(queuedState(runId, entry.queued), 0);
    try {
      for (let i = 0; i < events.length; i++) {
        projection = context.projections.apply(events[i]!, eventSize);
      }
    } catch (error) {
      context.projections.forget(runId);
      if (group !== undefined) group.projection = undefined;
      failures.push({ id, runId, error: `not folded: ${describe(error)}` });
      continue;
    }
    // A run's first entry starts its list: `[id]` holds one id, a list pushed to from empty sixteen.
    if (group === undefined) {
      group = { runId, ids: [id], projection: undefined, settles: false };
      byRun.set(runId, group);
      groups.push(group);
    } else group.ids.push(id);
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (isTerminalEventType(event.type)) group.settles = true;
      else if (event.type === "run-queued") group.queued ??= event;
    }
    if (entry.expiresAt !== undefined) group.expiresAt = entry.expiresAt;
    if (entry.moved) group.moved = true;
    if (entry.childrenExpired) group.childrenExpired = true;
    if (entry.indexed || entry.queued !== undefined) {
      // Its opening append wrote its agent's and tenant's runs: the settling call leaves them be.
      group.indexedWhenQueued = true;
      context.projections.markListed(runId);
    }
    group.projection = projection;
  }
  return groups;
}

/** {@link indexRuns}, made again while Redis fails transiently (out of memory, a cluster moving), until it passes or the collector stops. */
function indexWhenRoom(
  context: CollectorContext,
  shard: number,
  segments: readonly IndexSegment[],
): Promise<boolean[]> {
  return retryWhileRedisIsTransient(() => indexRuns(context, shard, segments), {
    logger: context.logger,
    write: "indexes and results of a batch",
    fields: { shard, runs: segments.length },
    signal: context.stopping,
  });
}

/** Whether a run's entries are applied after its index call said `indexed`: a settled run needs its head there. */
function isApplied({ settles }: RunGroup, indexed: boolean): boolean {
  return indexed || !settles;
}

/**
 * Indexes the prepared runs in one call; when that call fails, each run in a
 * call of its own. Resolves with, per run, true, false (no head) or the error.
 */
async function indexPrepared(
  context: CollectorContext,
  shard: number,
  prepared: readonly PreparedGroup[],
): Promise<(boolean | Error)[]> {
  try {
    return await indexWhenRoom(
      context,
      shard,
      prepared.map(({ segment }) => segment),
    );
  } catch {
    return Promise.all(
      prepared.map((run) =>
        indexWhenRoom(context, shard, [run.segment]).then(
          ([indexed]) => indexed ?? false,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        ),
      ),
    );
  }
}

/** What preparing a batch's runs gave: their index calls' parts, and their settled children. */
interface PreparedBatch {
  /** The runs to index, each with its part of the call. */
  prepared: PreparedGroup[];
  /** The settled runs that have a parent, with their results (to count in their parents' children). */
  children: SettledChild[];
}

/**
 * Prepares each run of `groups` (see {@link prepareRun}) and its part of the
 * index call; a run that needs nothing adds its entries to `needNothing`,
 * one that cannot be prepared fails. Awaits only the results it must read.
 */
async function prepareBatch(
  context: CollectorContext,
  groups: readonly RunGroup[],
  needNothing: string[],
  failures: EntryFailure[],
): Promise<PreparedBatch> {
  const batch: PreparedBatch = { prepared: [], children: [] };
  const add = (group: RunGroup, index: RunToIndex): void => {
    group.segment = indexSegment(context.keys, index);
    batch.prepared.push(group as PreparedGroup);
    const { result } = index;
    if (result?.parentRunId !== undefined) batch.children.push({ runId: group.runId, result });
  };
  const reads: Promise<void>[] = [];
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i]!;
    try {
      const index = prepareRun(context, group);
      if (index === undefined) pushAll(needNothing, group.ids);
      else if (index instanceof Promise) {
        reads.push(
          index
            .then((run) => add(group, run))
            .catch((error: unknown) => failGroup(failures, group, error)),
        );
      } else add(group, index);
    } catch (error) {
      failGroup(failures, group, error);
    }
  }
  if (reads.length > 0) await Promise.all(reads);
  return batch;
}

/**
 * Applies `entries` of `shard`'s stream: resolves with those applied (what
 * each needs is written, by the batch's index call when it has runs to
 * index), which the caller acknowledges, and those that failed.
 */
export async function applyBatch(
  context: CollectorContext,
  shard: number,
  entries: readonly ShardEntry[],
): Promise<AppliedBatch> {
  const failures: EntryFailure[] = [];
  const groups = groupByRun(context, entries, failures);
  // The entries that need nothing written; once the index call is made, the runs' applied entries join them.
  const applied: string[] = [];
  const settled: string[] = [];
  const { prepared, children } = await prepareBatch(context, groups, applied, failures);
  let toIndex = prepared;
  if (children.length > 0) {
    const uncounted = await countSettledChildren(context, children);
    if (uncounted.size > 0) {
      toIndex = [];
      for (const run of prepared) {
        if (!uncounted.has(run.runId)) toIndex.push(run);
        else failGroup(failures, run, "its parent's children counts were not written");
      }
    }
  }
  if (toIndex.length > 0) {
    const indexed = await indexPrepared(context, shard, toIndex);
    for (let i = 0; i < toIndex.length; i++) {
      const run = toIndex[i]!;
      const outcome = indexed[i];
      if (outcome instanceof Error) failGroup(failures, run, outcome);
      else if (!isApplied(run, outcome === true)) {
        failGroup(
          failures,
          run,
          `run ${run.runId}: settled, but its head is gone (expired before it was indexed)`,
        );
      } else {
        pushAll(applied, run.ids);
        if (run.settles) settled.push(run.runId);
        else if (outcome === true) context.projections.markListed(run.runId);
      }
    }
  }
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i]!;
    if (group.settles) context.projections.forget(group.runId);
  }
  return { applied, failures, settled };
}
