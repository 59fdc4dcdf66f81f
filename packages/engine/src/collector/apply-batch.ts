/**
 * One batch of shard stream entries, applied: the entries are grouped by run
 * and folded into the runs' projections, in stream order; a run whose
 * terminal event is in the batch is settled (parent's inbox and children
 * index, then its own indexes, result and a wake-up on its shard's settled
 * channel); a run whose `run-queued` is in the batch is indexed; every other
 * event needs nothing more.
 * Then the entries that were applied are acknowledged, in one XACK. An entry
 * that could not be read, or whose run failed to apply, stays pending for a
 * later delivery (see `dead-letter.ts`).
 *
 * Every effect is idempotent, so an entry delivered twice (a collector killed
 * before its XACK, an entry claimed from a slow one) changes nothing the
 * second time: the result is written once and not folded again, the indexes
 * follow the run's head, and the inbox announces each child once.
 */
import {
  ErrandError,
  isTerminalEventType,
  type RunEvent,
  type RunEventOf,
  type RunState,
} from "@errand/core";
import type { ShardEntry } from "@errand/store";
import type { CollectorContext } from "./context.js";
import { announceToParent } from "./inbox.js";
import { settledResult } from "./project-result.js";
import { indexChild, indexRun } from "./run-index.js";

/** An entry that could not be applied, and why. */
export interface EntryFailure {
  id: string;
  runId: string;
  error: string;
}

/** What a batch did. */
export interface BatchOutcome {
  /** The entries applied and acknowledged. */
  acknowledged: string[];
  /** The entries left pending. */
  failures: EntryFailure[];
  /** The runs settled by this batch (their results are written). */
  settled: string[];
}

/**
 * Settles a run: its parent's inbox and children index, then, in one script
 * call, its own indexes, its stored result and a wake-up for waiters. The
 * result is written last, so whoever reads a result (a waiting `collect`, a
 * parked parent) finds the run indexed and announced too.
 */
async function projectSettledRun(
  context: CollectorContext,
  runId: string,
  projection: RunState | undefined,
): Promise<void> {
  const result = await settledResult(context, runId, projection);
  const run = {
    runId,
    agent: result.agent,
    createdAt: result.createdAt,
    ...(result.parentRunId === undefined ? {} : { parentRunId: result.parentRunId }),
  };
  await Promise.all([indexChild(context, run), announceToParent(context, result)]);
  if (!(await indexRun(context, run, result))) {
    throw new ErrandError(
      "internal",
      `run ${runId}: settled, but its head is gone (expired before it was collected)`,
      { details: { runId } },
    );
  }
}

/** Indexes a newly queued run. */
async function indexQueuedRun(
  context: CollectorContext,
  queued: RunEventOf<"run-queued">,
): Promise<void> {
  const { agent, parentRunId, limits } = queued.data;
  const run = {
    runId: queued.runId,
    agent,
    createdAt: queued.at,
    ...(parentRunId === undefined ? {} : { parentRunId }),
    ...(limits.deadlineAt === undefined ? {} : { deadlineAt: limits.deadlineAt }),
  };
  await Promise.all([indexRun(context, run), indexChild(context, run)]);
}

/** One run's entries of a batch, and its projection once they are folded in. */
interface RunGroup {
  ids: string[];
  events: RunEvent[];
  projection: RunState | undefined;
}

/** Applies one run's events of the batch; resolves true when it settled the run. */
async function applyRunEvents(
  context: CollectorContext,
  runId: string,
  { events, projection }: RunGroup,
): Promise<boolean> {
  if (events.some((event) => isTerminalEventType(event.type))) {
    try {
      await projectSettledRun(context, runId, projection);
    } finally {
      context.projections.forget(runId);
    }
    return true;
  }
  const queued = events.find(
    (event): event is RunEventOf<"run-queued"> => event.type === "run-queued",
  );
  if (queued) await indexQueuedRun(context, queued);
  return false;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Applies `entries` of `shard`'s stream, then acknowledges those applied. */
export async function applyBatch(
  context: CollectorContext,
  shard: number,
  entries: readonly ShardEntry[],
): Promise<BatchOutcome> {
  const failures: EntryFailure[] = [];
  const byRun = new Map<string, RunGroup>();
  for (const entry of entries) {
    if (entry.event === undefined) {
      failures.push({ id: entry.id, runId: entry.runId, error: entry.error ?? "not an event" });
      continue;
    }
    const group = byRun.get(entry.runId) ?? { ids: [], events: [], projection: undefined };
    group.ids.push(entry.id);
    group.events.push(entry.event);
    group.projection = context.projections.apply(entry.event);
    byRun.set(entry.runId, group);
  }
  const acknowledged: string[] = [];
  const settled: string[] = [];
  await Promise.all(
    [...byRun].map(async ([runId, group]) => {
      try {
        if (await applyRunEvents(context, runId, group)) settled.push(runId);
        acknowledged.push(...group.ids);
      } catch (error) {
        for (const id of group.ids) failures.push({ id, runId, error: describe(error) });
      }
    }),
  );
  if (acknowledged.length > 0) {
    await context.redis.xack(context.keys.shardEvents(shard), context.group, ...acknowledged);
  }
  return { acknowledged, failures, settled };
}
