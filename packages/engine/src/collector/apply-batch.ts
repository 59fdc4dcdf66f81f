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
 * settled channel, then acknowledges the entries whose effects it wrote (the
 * XACK is the call's last command: every key of the call, the shard stream
 * included, carries the shard's hash tag, and every run of an entry
 * the collector applies is a run of that shard). Should that call fail, each
 * run is tried in a call of its own, acknowledging its own entries, so that
 * one bad run fails alone; every other event needs nothing more (its entries
 * ride on the call, or on one XACK when the batch indexes nothing). An
 * entry that could not be read, whose events the fold refused, or whose run
 * failed to apply, stays pending for a later delivery (see `dead-letter.ts`).
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
 * before its XACK, an entry claimed from a slow one) changes nothing the
 * second time: the result is written once and not folded again, and the
 * indexes follow the run's head.
 */
import {
  isTerminalEventType,
  type RunEvent,
  type RunEventOf,
  type RunResult,
  type RunState,
} from "@errand/core";
import type { ShardEntry } from "@errand/store";
import {
  type IndexAcknowledgement,
  type IndexedRun,
  type IndexSegment,
  indexRuns,
  indexSegment,
  type RunToIndex,
} from "@errand/store/ops";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import type { CollectorContext } from "./context.js";
import { countSettledChildren } from "./count-settled-children.js";
import { settledResult } from "./project-result.js";
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
  /** The entries applied and acknowledged. */
  acknowledged: string[];
  /** The entries left pending. */
  failures: EntryFailure[];
  /** The runs settled by this batch (their results are written). */
  settled: string[];
}

/** One run's entries of a batch, and its projection once they are folded in. */
interface RunGroup {
  runId: string;
  ids: string[];
  events: RunEvent[];
  projection: RunState | undefined;
  /** When the run's log and head expire, as the entry of its settling append says; undefined when it does not. */
  expiresAt?: number;
  /** True when the append that opened the run indexed it as queued (its entry says `indexed`, or the first after a quiet opening says `queued`). */
  indexedWhenQueued?: boolean;
  /** True when the append that settled the run, older than this version, moved its indexes and expired its children (its entry says `moved`). */
  moved?: boolean;
  /** True when the append that settled the run expired its children but left its indexes to this collector (its entry says `childrenExpired`). */
  childrenExpired?: boolean;
}

/**
 * A settled run, before its indexes and result are written: its result is
 * worked out. Its deadline is known when it was folded from its `run-queued`.
 */
async function prepareSettledRun(
  context: CollectorContext,
  { runId, projection, expiresAt, moved, childrenExpired }: RunGroup,
): Promise<RunToIndex> {
  const result = await settledResult(context, runId, projection);
  const run: IndexedRun = {
    runId,
    agent: result.agent,
    ...(result.tenant === undefined ? {} : { tenant: result.tenant }),
    createdAt: result.createdAt,
  };
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
function prepareQueuedRun(queued: RunEventOf<"run-queued">): RunToIndex {
  const { agent, tenant, limits } = queued.data;
  const run: IndexedRun = {
    runId: queued.runId,
    agent,
    ...(tenant === undefined ? {} : { tenant }),
    createdAt: queued.at,
    ...(limits.deadlineAt === undefined ? {} : { deadlineAt: limits.deadlineAt }),
  };
  return { run };
}

/** What a run's events need from the shard's indexes, once prepared; undefined for nothing. */
async function prepareRun(
  context: CollectorContext,
  group: RunGroup,
): Promise<RunToIndex | undefined> {
  if (settlesIn(group)) return prepareSettledRun(context, group);
  const queued = group.events.find(
    (event): event is RunEventOf<"run-queued"> => event.type === "run-queued",
  );
  return queued === undefined || group.indexedWhenQueued ? undefined : prepareQueuedRun(queued);
}

/** Whether the run's terminal event is among its entries of the batch. */
function settlesIn(group: RunGroup): boolean {
  return group.events.some((event) => isTerminalEventType(event.type));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Groups the entries by run, folding each of their events into its run's
 * projection (an entry's size shared evenly among its events). An entry that
 * could not be read fails, and so does one whose events the fold refuses
 * (their data is not validated again when read: an event the fold cannot
 * take fails here, alone, and its run is no longer followed).
 */
function groupByRun(
  context: CollectorContext,
  entries: readonly ShardEntry[],
  failures: EntryFailure[],
): RunGroup[] {
  const byRun = new Map<string, RunGroup>();
  for (const entry of entries) {
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
      for (const event of events) projection = context.projections.apply(event, eventSize);
    } catch (error) {
      context.projections.forget(runId);
      if (group !== undefined) group.projection = undefined;
      failures.push({ id, runId, error: `not folded: ${describe(error)}` });
      continue;
    }
    if (group === undefined) {
      group = { runId, ids: [], events: [], projection: undefined };
      byRun.set(runId, group);
    }
    group.ids.push(id);
    for (const event of events) group.events.push(event);
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
  return [...byRun.values()];
}

/** A prepared run: its group, its part of the index call, and its result when it settles. */
interface GroupToIndex {
  group: RunGroup;
  segment: IndexSegment;
  settles: boolean;
  result?: RunResult;
}

/** {@link indexRuns}, made again while Redis fails transiently (out of memory, a cluster moving), until it passes or the collector stops. */
function indexWhenRoom(
  context: CollectorContext,
  shard: number,
  segments: readonly IndexSegment[],
  acknowledge: IndexAcknowledgement,
): Promise<boolean[]> {
  return retryWhileRedisIsTransient(() => indexRuns(context, shard, segments, acknowledge), {
    logger: context.logger,
    write: "indexes and results of a batch",
    fields: { shard, runs: segments.length },
    signal: context.stopping,
  });
}

/** Whether a run's entries are acknowledged after its index call said `indexed` (index-runs-n.lua's rule). */
function isAcknowledged({ settles }: GroupToIndex, indexed: boolean): boolean {
  return indexed || !settles;
}

/**
 * Indexes the prepared runs in one call that also acknowledges their entries
 * and `others` (entries that need nothing written); when that call fails,
 * each run in a call of its own, acknowledging its own entries, then
 * `others` in one XACK. Resolves with, per run, true, false (no head) or the error.
 */
async function indexPrepared(
  context: CollectorContext,
  shard: number,
  prepared: readonly GroupToIndex[],
  others: readonly string[],
): Promise<(boolean | Error)[]> {
  const { group } = context;
  try {
    return await indexWhenRoom(
      context,
      shard,
      prepared.map(({ segment }) => segment),
      { group, ofRuns: prepared.map((run) => run.group.ids), others },
    );
  } catch {
    const outcomes = await Promise.all(
      prepared.map((run) =>
        indexWhenRoom(context, shard, [run.segment], {
          group,
          ofRuns: [run.group.ids],
          others: [],
        }).then(
          ([indexed]) => indexed ?? false,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        ),
      ),
    );
    if (others.length > 0) await acknowledge(context, shard, others);
    return outcomes;
  }
}

function acknowledge(
  context: CollectorContext,
  shard: number,
  ids: readonly string[],
): Promise<number> {
  return context.redis.xack(context.keys.shardEvents(shard), context.group, ...ids);
}

/**
 * Applies `entries` of `shard`'s stream and acknowledges those applied, each
 * once what it needs is written: with the batch's index call when it has
 * runs to index, else in one XACK.
 */
export async function applyBatch(
  context: CollectorContext,
  shard: number,
  entries: readonly ShardEntry[],
): Promise<AppliedBatch> {
  const failures: EntryFailure[] = [];
  const fail = (group: RunGroup, error: unknown) => {
    for (const id of group.ids) failures.push({ id, runId: group.runId, error: describe(error) });
  };
  const groups = groupByRun(context, entries, failures);
  const needNothing: string[] = [];
  const settled: string[] = [];
  const prepared: GroupToIndex[] = [];
  await Promise.all(
    groups.map(async (group) => {
      try {
        const index = await prepareRun(context, group);
        if (index === undefined) needNothing.push(...group.ids);
        else {
          const settles = index.result !== undefined;
          const segment = indexSegment(context.keys, index);
          prepared.push({ group, segment, settles, ...(settles ? { result: index.result } : {}) });
        }
      } catch (error) {
        fail(group, error);
      }
    }),
  );
  const acknowledged = [...needNothing];
  const uncounted = await countSettledChildren(
    context,
    prepared.flatMap(({ group, result }) =>
      result === undefined ? [] : [{ runId: group.runId, result }],
    ),
  );
  const toIndex: GroupToIndex[] = [];
  for (const run of prepared) {
    if (!uncounted.has(run.group.runId)) toIndex.push(run);
    else fail(run.group, "its parent's children counts were not written");
  }
  if (toIndex.length === 0) {
    if (needNothing.length > 0) await acknowledge(context, shard, needNothing);
  } else {
    const indexed = await indexPrepared(context, shard, toIndex, needNothing);
    toIndex.forEach((run, position) => {
      const outcome = indexed[position];
      if (outcome instanceof Error) fail(run.group, outcome);
      else if (!isAcknowledged(run, outcome === true)) {
        fail(
          run.group,
          `run ${run.group.runId}: settled, but its head is gone (expired before it was indexed)`,
        );
      } else {
        acknowledged.push(...run.group.ids);
        if (run.settles) settled.push(run.group.runId);
        else if (outcome === true) context.projections.markListed(run.group.runId);
      }
    });
  }
  for (const group of groups) {
    if (settlesIn(group)) context.projections.forget(group.runId);
  }
  return { acknowledged, failures, settled };
}
