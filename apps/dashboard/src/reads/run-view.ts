/**
 * One run as the dashboard shows it: its `RunResult` once settled — the
 * same fold of the same log the collector stores — or the same fields so
 * far while it is queued or running, beside what it was fired with.
 */
import {
  ErrandError,
  type EventDataOf,
  foldRun,
  type RunEvent,
  type RunSoFar,
  type RunState,
  runSoFar,
} from "@errand/core";
import { isRunId, runNotFound } from "@errand/core/ops";
import type { DashboardContext } from "../context.js";
import { showValue, showWhole } from "../present/show-value.js";

/**
 * A run's `RunResult`, or while it runs the same fields so far (status
 * `queued` or `running`, and `waiting` while it is parked): core's `RunSoFar`.
 */
export type RunView = RunSoFar;

/** What a run was fired with, redacted; the input shortened when large (`inputTruncated`). */
export interface RunDefinition {
  input: unknown;
  inputTruncated: boolean;
  outputSchema?: Record<string, unknown>;
  metadata: Record<string, string>;
  limits: EventDataOf<"run-queued">["limits"];
  depth: number;
}

/** `GET /api/runs/:runId`. */
export interface RunDetail {
  run: RunView;
  definition: RunDefinition;
  /** Set once a cancel was asked for. */
  cancelRequested?: EventDataOf<"cancel-requested">;
  /** The worker of the latest attempt. */
  workerId?: string;
  /** The seq of the last event: the live stream of the run continues after it. */
  seq: number;
}

/** Throws `invalid_spec` unless `runId` is a run id. */
export function requireRunId(runId: string): string {
  if (!isRunId(runId)) {
    throw new ErrandError("invalid_spec", `not a run id: ${JSON.stringify(runId)}`);
  }
  return runId;
}

/** The view of a folded run, its output redacted. */
export function runViewOf(state: RunState): RunView {
  const view = runSoFar(state);
  return view.output === undefined ? view : { ...view, output: showWhole(view.output) };
}

function definitionOf(queued: EventDataOf<"run-queued">): RunDefinition {
  const input = showValue(queued.input);
  return {
    input: input.value,
    inputTruncated: input.truncated,
    ...(queued.outputSchema === undefined ? {} : { outputSchema: queued.outputSchema }),
    metadata: showWhole(queued.metadata) as Record<string, string>,
    limits: queued.limits,
    depth: queued.depth,
  };
}

/**
 * The detail of a folded run whose log starts with `run-queued`, with its
 * budget's live figures when it has one.
 */
async function runDetailOf(
  context: DashboardContext,
  events: readonly RunEvent[],
  runId: string,
): Promise<RunDetail> {
  const state = foldRun(events, runId);
  if (state.queued === undefined) throw runNotFound(runId);
  return {
    run: await context.errand.withTreeSpend(runViewOf(state)),
    definition: definitionOf(state.queued),
    ...(state.cancelRequested === undefined ? {} : { cancelRequested: state.cancelRequested }),
    ...(state.workerId === undefined ? {} : { workerId: state.workerId }),
    seq: state.seq,
  };
}

/** Reads and folds the run's log. Throws `invalid_spec` or `not_found`. */
export async function readRunDetail(context: DashboardContext, runId: string): Promise<RunDetail> {
  const events = await context.errand.store.readLog(requireRunId(runId));
  if (events.length === 0) throw runNotFound(runId);
  return runDetailOf(context, events, runId);
}
