/**
 * A settled run's result: core's `settleRun` of the run's fold, kept for its
 * result alone (`applyResultEvent`: no step's calls, text or items). The
 * collector usually has the fold already (see `run-projections.ts`);
 * otherwise the result is read back when stored, else folded from the run's
 * log a page at a time, so that a parent of a million children costs a page
 * of its log and a few hundred bytes a step, not its whole log twice over
 * (docs/architecture/collector.md#results-folded-a-page-at-a-time). The JSON
 * of the same log is the same bytes every time, so collectors racing on one
 * run agree.
 */
import {
  ErrandError,
  initialRunState,
  type RunResult,
  type RunState,
  settleRun,
} from "@errand/core";
import { applyResultEvent } from "@errand/core/ops";
import type { EventStore } from "@errand/store";
import { parseStoredResult } from "@errand/store/ops";
import type { CollectorContext } from "./context.js";

/**
 * Events a read of a run's log asks for: each event holds a few tens of KB
 * at most (its values over the inline limits are blobs), so a page is a
 * reply of a few MB at most, and a child's log is one read.
 */
export const RESULT_LOG_PAGE_EVENTS = 256;

/** The run's log folded for its result, {@link RESULT_LOG_PAGE_EVENTS} events a read, up to its end. */
async function foldLogForResult(store: EventStore, runId: string): Promise<RunState> {
  let state = initialRunState(runId);
  for (;;) {
    const page = await store.readLog(runId, {
      afterSeq: state.seq,
      count: RESULT_LOG_PAGE_EVENTS,
    });
    state = page.reduce(applyResultEvent, state);
    if (page.length < RESULT_LOG_PAGE_EVENTS) return state;
  }
}

/**
 * The result of a settled run: `settleRun(projection)` when the collector
 * folded the whole run from the stream; else the run's stored result (a
 * redelivered entry never folds the log again); else the fold of its log.
 * Throws an {@link ErrandError} `internal` when the log does not settle (it
 * expired, or the entry that announced the settlement lied).
 */
export async function settledResult(
  context: CollectorContext,
  runId: string,
  projection: RunState | undefined,
): Promise<RunResult> {
  const folded = projection === undefined ? undefined : settleRun(projection);
  if (folded !== undefined) return folded;
  const { redis, keys, store } = context;
  const stored = await redis.get(keys.result(runId));
  if (stored !== null) return parseStoredResult(runId, stored);
  const result = settleRun(await foldLogForResult(store, runId));
  if (result === undefined) {
    throw new ErrandError(
      "internal",
      `run ${runId}: its shard stream announced a terminal event, but its log does not settle (expired or missing)`,
      { details: { runId } },
    );
  }
  return result;
}
