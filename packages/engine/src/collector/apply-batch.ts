/**
 * One batch of shard stream entries, applied: the entries are grouped by run;
 * a run whose terminal event is in the batch is settled (indexes, parent's
 * inbox, result, a wake-up on its shard's settled channel); a run whose
 * `run-queued` is in the batch is indexed; every other event needs nothing.
 * Then the entries that were applied are acknowledged, in one XACK. An entry
 * that could not be read, or whose run failed to apply, stays pending for a
 * later delivery (see `dead-letter.ts`).
 *
 * Every effect is idempotent, so an entry delivered twice (a collector killed
 * before its XACK, an entry claimed from a slow one) changes nothing the
 * second time: the result is written once and not folded again, the indexes
 * follow the run's head, and the inbox announces each child once.
 */
import { isTerminalEventType, type RunEvent, type RunEventOf, shardOfRunId } from "@errand/core";
import type { ShardEntry } from "@errand/store";
import type { CollectorContext } from "./context.js";
import { announceToParent } from "./inbox.js";
import { settledResult, storeResult } from "./project-result.js";
import { indexRun } from "./run-index.js";

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
 * Settles a run: indexes and parent's inbox, then its stored result, then a
 * wake-up for waiters. The result is written last, so whoever reads a
 * result (a waiting `collect`, a parked parent) finds the run indexed and
 * announced too.
 */
async function projectSettledRun(context: CollectorContext, runId: string): Promise<void> {
  const { result, stored } = await settledResult(context, runId);
  await indexRun(context, {
    runId,
    agent: result.agent,
    createdAt: result.createdAt,
    ...(result.parentRunId === undefined ? {} : { parentRunId: result.parentRunId }),
  });
  await announceToParent(context, result);
  if (!stored) await storeResult(context, result);
  await context.redis.publish(context.keys.settledChannel(shardOfRunId(runId)), runId);
}

/** Indexes a newly queued run. */
async function indexQueuedRun(
  context: CollectorContext,
  queued: RunEventOf<"run-queued">,
): Promise<void> {
  const { agent, parentRunId, limits } = queued.data;
  await indexRun(context, {
    runId: queued.runId,
    agent,
    createdAt: queued.at,
    ...(parentRunId === undefined ? {} : { parentRunId }),
    ...(limits.deadlineAt === undefined ? {} : { deadlineAt: limits.deadlineAt }),
  });
}

/** Applies one run's events of the batch; resolves true when it settled the run. */
async function applyRunEvents(
  context: CollectorContext,
  runId: string,
  events: readonly RunEvent[],
): Promise<boolean> {
  if (events.some((event) => isTerminalEventType(event.type))) {
    await projectSettledRun(context, runId);
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
  const byRun = new Map<string, { ids: string[]; events: RunEvent[] }>();
  for (const entry of entries) {
    if (entry.event === undefined) {
      failures.push({ id: entry.id, runId: entry.runId, error: entry.error ?? "not an event" });
      continue;
    }
    const group = byRun.get(entry.runId) ?? { ids: [], events: [] };
    group.ids.push(entry.id);
    group.events.push(entry.event);
    byRun.set(entry.runId, group);
  }
  const acknowledged: string[] = [];
  const settled: string[] = [];
  await Promise.all(
    [...byRun].map(async ([runId, { ids, events }]) => {
      try {
        if (await applyRunEvents(context, runId, events)) settled.push(runId);
        acknowledged.push(...ids);
      } catch (error) {
        for (const id of ids) failures.push({ id, runId, error: describe(error) });
      }
    }),
  );
  if (acknowledged.length > 0) {
    await context.redis.xack(context.keys.shardEvents(shard), context.group, ...acknowledged);
  }
  return { acknowledged, failures, settled };
}
